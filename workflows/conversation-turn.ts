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
import { awaitMilestoneUpdate, decideApprovalUpdate, turnProgressQuery } from './messages';
import { ConfigVersionKey, IntentKey, StateKey, TurnOutcomeKey } from './search-attributes';
import { WorkflowTurnExecutor } from './turn-executor';
import { TurnState } from './turn-state';

function installHandlers(state: TurnState): void {
  setHandler(turnProgressQuery, () => state.progress());
  setHandler(awaitMilestoneUpdate, async () => {
    await condition(() => state.hasMilestone());
    return state.progress();
  });
  setHandler(decideApprovalUpdate, (input) => state.applyDecision(input), {
    validator: (input) => state.validateDecision(input),
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
  });
}

/**
 * One conversation turn. Every pipeline step, planner iteration and tool call is an activity
 * (see WorkflowTurnExecutor), so the turn can be read step by step — and replayed — from history.
 */
export async function conversationTurn(input: TurnInput): Promise<TurnResult> {
  const state = new TurnState();
  installHandlers(state);
  try {
    const result = await runTurn(input, new WorkflowTurnExecutor(input, state));
    recordOutcome(state, result);
    state.result = result;
    state.status = 'COMPLETED';
    await condition(allHandlersFinished);
    return result;
  } catch (err) {
    // Only failures from Temporal (activities out of retries, non-retryable types) fail the turn.
    // A bug in workflow code fails the workflow task instead, so a fixed deploy can resume it.
    if (isCancellation(err) || !(err instanceof TemporalFailure)) throw err;
    const message = err instanceof Error ? err.message : String(err);
    const type = err instanceof ApplicationFailure && err.type ? err.type : 'TURN_FAILED';
    upsertSearchAttributes([{ key: TurnOutcomeKey, value: 'FAILED' }]);
    state.failure = { type, message };
    state.status = 'FAILED';
    await condition(allHandlersFinished);
    throw ApplicationFailure.create({
      type: 'TURN_FAILED',
      message: `Turn ${input.turnId} failed: ${message}`,
      nonRetryable: true,
      cause: err instanceof Error ? err : undefined,
    });
  }
}
