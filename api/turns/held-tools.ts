import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { OPERATOR_DECISION_TIMEOUT_DEFAULT_MS } from '../../config/env';
import {
  resolveHeldToolUpdate,
  type HeldTool,
  type HeldToolAck,
  type HeldToolDecisionInput,
} from '../../workflows/messages';
import { readTurnSearchAttributes, runningTurnsQuery, TurnOutcomeValue } from '../../workflows/search-attributes';
import { conflict, type ApiError } from '../errors';
import { DecisionDeadline } from './decision-deadline';
import { describeForDecision, pendingWorkflowTaskAttempt, sendDecision } from './decisions';
import { recordedPatches } from '../../observability/turn-patches';
import { turnNotFound } from './turn-id';
import { listedParkedReader } from './turn-worker';

/** The task queue's turns with a tool call held for an operator (#22): the workflow sets this outcome while it waits. */
const heldTurnsQuery = (taskQueue: string): string => runningTurnsQuery(taskQueue, TurnOutcomeValue.Held);

export interface HeldTurn {
  workflowId: string;
  runId: string;
  /** Where the turn stands, from its search attributes: known without a worker (null for a turn parked before). */
  intent: string | null;
  state: string | null;
  configVersion: string | null;
  /**
   * The held call, from the turn's memo; null when it could not be read (`unavailable`): a turn held by a worker before
   * the memo said (PARKED_MEMO_PATCH) is asked its worker.
   */
  held: HeldTool | null;
  /** Why `held` is null: the turn's memo does not say, and no worker answers the turn's query. */
  unavailable?: string;
}

/**
 * What an operator can do with held turns; the API's admin routes and `convengine sre` use the
 * same calls, so both are the workflow's own resolveHeldTool update underneath — the one
 * `temporal workflow update execute --name resolveHeldTool` sends.
 */
export interface HeldToolOperations {
  /** Every held turn Temporal's visibility lists, each with its held call as its memo says. */
  list(): Promise<HeldTurn[]>;
  resolve(workflowId: string, input: HeldToolDecisionInput): Promise<HeldToolAck>;
}

/** A listed turn and its position, before its held call is read. */
function visibleTurn(execution: WorkflowExecutionInfo): Omit<HeldTurn, 'held'> {
  const at = readTurnSearchAttributes(execution.searchAttributes);
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    intent: at.intent ?? null,
    state: at.state ?? null,
    configVersion: at.configVersion ?? null,
  };
}

/**
 * The held turns of the deployment whose turns run on `taskQueue` (TEMPORAL_TASK_QUEUE): another queue's turn on the
 * namespace is neither listed nor resolved. `decisionTimeoutMs`: OPERATOR_DECISION_TIMEOUT_MS, a decision's
 * one deadline (its Temporal calls' and its wait for the turn's worker).
 */
export function temporalHeldTools(
  client: Client,
  options: { taskQueue: string; decisionTimeoutMs?: number }
): HeldToolOperations {
  const { taskQueue } = options;
  return {
    async list() {
      const turns: HeldTurn[] = [];
      const parkedOf = listedParkedReader(client);
      for await (const execution of client.workflow.list({ query: heldTurnsQuery(taskQueue) })) {
        const turn = visibleTurn(execution);
        const outcome = readTurnSearchAttributes(execution.searchAttributes).turnOutcome;
        const read = await parkedOf(turn.workflowId, { ...execution, outcome });
        if (read && 'unavailable' in read) {
          turns.push({ ...turn, held: null, unavailable: read.unavailable });
        } else if (read?.parked.held) {
          // A turn resolved between the listing and the query is simply no longer held.
          turns.push({ ...turn, held: read.parked.held });
        }
      }
      return turns;
    },
    async resolve(workflowId, input) {
      const deadline = new DecisionDeadline(options.decisionTimeoutMs ?? OPERATOR_DECISION_TIMEOUT_DEFAULT_MS, client);
      const handle = client.workflow.getHandle(workflowId);
      const turn = await describeForDecision(handle, taskQueue, deadline);
      if (!turn) throw turnNotFound(workflowId);
      if (turn.status.name !== 'RUNNING') throw notHeld(workflowId);
      const target = {
        client,
        workflowId,
        taskQueue: turn.taskQueue,
        workflowType: turn.type,
        recordedPatches: recordedPatches(turn.searchAttributes),
        deadline,
        notWaiting: () => notHeld(workflowId),
        refusedCode: 'DECISION_REFUSED',
        workflowTaskAttempt: pendingWorkflowTaskAttempt(turn),
      };
      return sendDecision(target, () => handle.executeUpdate(resolveHeldToolUpdate, { args: [input] }));
    },
  };
}

/** A turn that exists but holds no call: it was never held, is already resolved, or has ended. */
export const notHeld = (workflowId: string): ApiError =>
  conflict('NOT_HELD', `Turn ${workflowId} has no tool call held for an operator.`);
