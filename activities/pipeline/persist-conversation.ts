import { AuditStage, type EngineReturnPayload } from '../../core/audit/payloads';
import { paramsToPersist } from '../../core/conversation/params';
import { syncSessionToContext } from '../../core/conversation/sync';
import { EngineError, ErrorType } from '../../core/errors';
import type { Json } from '../../core/json';
import type { Payload } from '../../core/session';
import type { StepOutput } from '../../core/turn/contracts';
import { commitTurn } from '../../db/repositories/conversation';
import type { StepContext } from '../step-runtime';

function storedReply(payload: Payload, lastAssistantJson: Json | null): Json {
  return lastAssistantJson ?? (payload.type === 'TEXT' ? { type: 'TEXT', value: payload.value } : payload.value);
}

/**
 * Commits the turn (the only writer of ce_conversation and its history): one transaction,
 * optimistic on turn_count. Everything the turn put in context is stored (D14). A retry after a
 * successful commit, or a rerun (a reset) that commits the very same, is a no-op; any other conflict,
 * a rerun that ends the turn otherwise included, is a non-retryable STALE_TURN.
 */
export async function persistConversation(ctx: StepContext): Promise<StepOutput> {
  const { turn } = ctx.input;
  const session = ctx.scope.session;
  const payload = session.payload;
  if (!payload)
    throw new EngineError('PIPELINE_NO_RESPONSE_PAYLOAD', `turn ${turn.turnId} reached commit without a reply`);
  syncSessionToContext(session);
  const reply = storedReply(payload, session.lastAssistantJson);
  const outcome = await commitTurn(ctx.deps.db, {
    conversationId: turn.conversationId,
    turnNumber: turn.turnNumber,
    status: session.conversationStatus,
    intentCode: session.intent,
    stateCode: session.state,
    context: session.context,
    lastUserText: session.userText,
    lastAssistantJson: reply,
    inputParams: paramsToPersist(session.inputParams),
    configVersion: session.configVersion,
    historyUserInput: session.userText,
    historyAssistantOutput: reply,
  });
  if (outcome === 'STALE') {
    throw new EngineError(
      ErrorType.StaleTurn,
      `turn ${turn.turnNumber} of ${turn.conversationId} conflicts with what is committed: a newer turn, or this ` +
        'turn committed with another outcome (a rerun cannot change it; the committed turn stands)',
      {
        details: { turnNumber: turn.turnNumber },
      }
    );
  }
  ctx.scope.audit(AuditStage.EngineReturn, {
    intent: session.intent,
    state: session.state,
    commit: outcome,
    conversationStatus: session.conversationStatus,
    final_result: { intent: session.intent, state: session.state, payload, context: session.context },
  } satisfies EngineReturnPayload);
  return ctx.scope.output();
}
