import type { Session } from '../../core/session';
import type { ToolCallContext } from './http/placeholders';

/** Context injected into every tool call (D16): who is asking, in which conversation and turn. */
export function toolCallContext(session: Session): ToolCallContext {
  return {
    conversationId: session.conversationId,
    turnNumber: session.turnNumber,
    userId: session.requestContext.userId ?? null,
    tenantId: session.requestContext.tenantId ?? null,
  };
}
