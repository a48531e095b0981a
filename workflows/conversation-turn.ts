import {
  ApplicationFailure,
  TemporalFailure,
  allHandlersFinished,
  condition,
  isCancellation,
  setHandler,
  upsertMemo,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { TurnInput, TurnResult } from '../core/turn/contracts';
import { runTurn } from '../core/turn/driver';
import { operatorFailedText } from '../core/mcp/hold';
import { awaitMilestoneUpdate, decideApprovalUpdate, resolveHeldToolUpdate, turnProgressQuery } from './messages';
import {
  ConfigVersionKey,
  IntentKey,
  positionAttributes,
  StateKey,
  TurnOutcomeKey,
  TurnOutcomeValue,
} from './search-attributes';
import { TurnStatus } from './turn-status';
import { WorkflowTurnExecutor } from './turn-executor';
import { WorkflowTurnExecutorV2 } from './turn-executor-v2';
import { applyHoldDecision, validateHoldDecision } from './tool-hold';
import { TurnState } from './turn-state';
import { resealed, sealedOutline } from './sealed-failure';
import { CURRENT_VERSIONS, PATCHED_VERSIONS } from './turn-versions';

function installHandlers(state: TurnState): void {
  setHandler(turnProgressQuery, () => state.progress());
  setHandler(awaitMilestoneUpdate, async () => {
    await condition(() => state.hasMilestone());
    return state.progress();
  });
  setHandler(decideApprovalUpdate, (input) => state.applyDecision(input), {
    validator: (input) => state.validateDecision(input),
  });
  setHandler(resolveHeldToolUpdate, (input) => applyHoldDecision(state, input), {
    validator: (input) => validateHoldDecision(state, input),
  });
}

function recordOutcome(state: TurnState, result: TurnResult): void {
  upsertSearchAttributes([
    { key: IntentKey, value: result.intent },
    { key: StateKey, value: result.state },
    { key: TurnOutcomeKey, value: result.outcome },
    { key: ConfigVersionKey, value: result.configVersion },
  ]);
  upsertMemo({
    configVersion: result.configVersion,
    plannerIterations: state.plannerIterations,
    toolCalls: state.toolCalls,
    decisions: state.decisions,
    ...(state.decisionLog.length > 0 ? { decisionLog: state.decisionLog } : {}),
  });
}

/**
 * One conversation turn, the current workflow type (the API starts this one). Every pipeline
 * step, planner iteration and tool call is an activity (local for cheap bookkeeping steps, see
 * core/turn/steps.ts) that returns a patch of the session, so the turn can be read step by step —
 * and replayed — from history while the history stays small. It runs as conversationTurnV2 does
 * in a turn with every patch, without asking for any (workflows/turn-versions.ts).
 */
export async function conversationTurnV3(input: TurnInput): Promise<TurnResult> {
  return runConversationTurn(input, (state) => new WorkflowTurnExecutorV2(state, CURRENT_VERSIONS));
}

/**
 * The previous workflow type, whose changes were made behind patches. Still registered, so turns
 * started as conversationTurnV2 finish and replay.
 */
export async function conversationTurnV2(input: TurnInput): Promise<TurnResult> {
  return runConversationTurn(input, (state) => new WorkflowTurnExecutorV2(state, PATCHED_VERSIONS));
}

/**
 * The first workflow type: every activity carries the whole session in and out. Still registered,
 * unchanged in what it schedules, so turns started before conversationTurnV2 finish and replay.
 */
export async function conversationTurn(input: TurnInput): Promise<TurnResult> {
  return runConversationTurn(input, (state) => new WorkflowTurnExecutor(input, state));
}

async function runConversationTurn(
  input: TurnInput,
  executorFor: (state: TurnState) => WorkflowTurnExecutor | WorkflowTurnExecutorV2
): Promise<TurnResult> {
  const state = new TurnState();
  installHandlers(state);
  const executor = executorFor(state);
  try {
    const result = await runTurn(input, executor);
    recordOutcome(state, result);
    state.result = result;
    state.status = TurnStatus.Completed;
    await condition(allHandlersFinished);
    return result;
  } catch (err) {
    // A cancelled turn ends CANCELLED, its failure row written first (turn-failure.ts), its TurnOutcome saying so.
    if (isCancellation(err)) {
      const cancelled = await executor.recordCancellation(input, err);
      if (cancelled) {
        const outcome = { key: TurnOutcomeKey, value: TurnOutcomeValue.Cancelled };
        upsertSearchAttributes([outcome, ...positionAttributes(cancelled.position)]);
      }
      throw err;
    }
    // Only failures from Temporal (activities out of retries, non-retryable types) fail the turn.
    // A bug in workflow code fails the workflow task instead, so a fixed deploy can resume it.
    if (!(err instanceof TemporalFailure)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const type = err instanceof ApplicationFailure && err.type ? err.type : 'TURN_FAILED';
    // A step failure the worker sealed (PAYLOAD_ENCRYPTION_KEYS) keeps its outline in history, not its text.
    const stored = sealedOutline(err) ?? message;
    const position = await executor.recordFailure(input, err);
    upsertSearchAttributes([{ key: TurnOutcomeKey, value: TurnOutcomeValue.Failed }, ...positionAttributes(position)]);
    // Read in full by whoever queries the turn (a payload, encrypted): an operator's reason too, which `stored` lacks.
    const details = err instanceof ApplicationFailure ? err.details : undefined;
    state.failure = { type, message: operatorFailedText(type, message, details) };
    state.status = TurnStatus.Failed;
    await condition(allHandlersFinished);
    throw ApplicationFailure.create({
      type: 'TURN_FAILED',
      message: `Turn ${input.turnId} failed: ${stored}`,
      nonRetryable: true,
      cause: err instanceof Error ? resealed(err) : undefined,
    });
  }
}
