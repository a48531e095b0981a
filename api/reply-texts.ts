import type { ConfigSnapshot } from '../core/config/types';
import { ReservedResponseState, reservedResponseText } from '../core/response/reserved';
import type { ConversationQueries, TurnReply } from './ports';

/**
 * The end-user texts of a reply that is not a completed turn: 202 "waiting for approval" and a
 * failed turn, 202 "held for an operator" (#22) and 202 "still running". They come from ce_response rows under the
 * reserved states AWAITING_APPROVAL, TOOL_HELD, TURN_FAILED and TURN_RUNNING (per intent, or ANY), else the
 * engine's defaults (core/response/reserved.ts).
 */
export interface ReplyTexts {
  /** The text for this reply, or null when the reply carries the turn's own payload. */
  textFor(turn: TurnReply): Promise<string | null>;
}

export interface ReplyTextSources {
  /** The running config; null (or a throw) means "use the defaults". */
  snapshot(): Promise<ConfigSnapshot | null>;
  conversations: Pick<ConversationQueries, 'conversation'>;
}

export function configReplyTexts(sources: ReplyTextSources): ReplyTexts {
  const snapshot = async () => sources.snapshot().catch(() => null);
  return {
    async textFor(turn) {
      if (turn.kind === 'COMPLETED') return null;
      if (turn.kind === 'AWAITING_APPROVAL') {
        const p = turn.pending;
        return reservedResponseText(await snapshot(), ReservedResponseState.AwaitingApproval, {
          intent: p.intent,
          state: p.state,
          toolCode: p.toolCode,
          args: p.args,
          expiresAt: p.expiresAt,
        });
      }
      if (turn.kind === 'HELD') {
        const { intent, state, toolCode, expiresAt } = turn.held;
        return reservedResponseText(await snapshot(), ReservedResponseState.ToolHeld, {
          intent,
          state,
          toolCode,
          expiresAt,
        });
      }
      if (turn.kind === 'RUNNING') {
        const { intent, state } = turn;
        return reservedResponseText(await snapshot(), ReservedResponseState.TurnRunning, { intent, state });
      }
      // A failed turn committed nothing: the conversation is still where the previous turn left it.
      const conversation = await sources.conversations.conversation(turn.ref.conversationId).catch(() => null);
      return reservedResponseText(await snapshot(), ReservedResponseState.TurnFailed, {
        intent: conversation?.intent ?? 'UNKNOWN',
        state: conversation?.state ?? 'UNKNOWN',
        failureType: turn.failureType,
        retryable: turn.retryable,
      });
    },
  };
}

/** Defaults only (no config): used where no config store is wired. */
export const defaultReplyTexts: ReplyTexts = configReplyTexts({
  snapshot: async () => null,
  conversations: { conversation: async () => null },
});
