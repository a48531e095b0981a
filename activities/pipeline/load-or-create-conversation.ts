import { intentLockFrom, pendingClarificationFrom } from '../../core/conversation/sync';
import { mergeTurnParams } from '../../core/conversation/params';
import { MemorySettings } from '../../core/config/settings/pipeline';
import { readSetting } from '../../core/config/setting';
import { EngineError, ErrorType } from '../../core/errors';
import { cloneJson } from '../../core/json';
import type { StepOutput } from '../../core/turn/contracts';
import { loadConversation } from '../../db/repositories/conversation';
import type { StepContext } from '../step-runtime';

/**
 * First step of a turn: makes sure the conversation row exists, checks that this turn is the next
 * one (turn_count + 1), and loads the session from the committed state. Pins the config version.
 */
export async function loadOrCreateConversation(ctx: StepContext): Promise<StepOutput> {
  const { turn } = ctx.input;
  const historyTurns = readSetting(ctx.snapshot, MemorySettings.historyMaxTurns);
  const loaded = await loadConversation(ctx.deps.db, turn.conversationId, historyTurns);
  if (!loaded)
    throw new EngineError(ErrorType.ConversationNotFound, `conversation ${turn.conversationId} vanished while loading`);
  const { conversation: row, history } = loaded;
  if (row.turnCount + 1 !== turn.turnNumber) {
    throw new EngineError(
      ErrorType.StaleTurn,
      `turn ${turn.turnNumber} of conversation ${turn.conversationId} is stale: ${row.turnCount} turns are committed`,
      { details: { committedTurns: row.turnCount, turnNumber: turn.turnNumber } }
    );
  }
  const session = ctx.scope.session;
  session.configVersion = ctx.snapshot.version;
  // The stored status describes the last turn only (§1.2 step 26): this turn is RUNNING unless the
  // policy step blocks it, so one refused message does not leave the conversation BLOCKED for good.
  session.conversationStatus = 'RUNNING';
  session.intent = row.intentCode;
  session.state = row.stateCode;
  session.context = cloneJson(row.context);
  session.lastAssistantJson = row.lastAssistantJson;
  session.inputParams = mergeTurnParams(row.inputParams, turn.inputParams);
  session.userInputParams = cloneJson(turn.inputParams);
  session.pendingClarification = pendingClarificationFrom(row.context);
  const lock = intentLockFrom(row.context);
  session.intentLocked = lock.locked;
  session.intentLockReason = lock.reason;
  session.history = history;
  return ctx.scope.output();
}
