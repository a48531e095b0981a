import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  resolveHeldToolUpdate,
  turnProgressQuery,
  type HeldTool,
  type HeldToolAck,
  type HeldToolDecisionInput,
} from '../../workflows/messages';
import { runningTurnsQuery, TurnOutcomeValue } from '../../workflows/search-attributes';
import { conflict, notFound, refusedUpdate, type ApiError } from '../errors';
import { describeOrNull } from './gateway';

/** Turns with a tool call held for an operator (#22): the workflow sets this outcome while it waits. */
export const HELD_TURNS_QUERY = runningTurnsQuery(TurnOutcomeValue.Held);

export interface HeldTurn {
  workflowId: string;
  runId: string;
  held: HeldTool;
}

/**
 * What an operator can do with held turns; the API's admin routes and `convengine sre` use the
 * same calls, so both are the workflow's own resolveHeldTool update underneath — the one
 * `temporal workflow update execute --name resolveHeldTool` sends.
 */
export interface HeldToolOperations {
  list(): Promise<HeldTurn[]>;
  resolve(workflowId: string, input: HeldToolDecisionInput): Promise<HeldToolAck>;
}

export function temporalHeldTools(client: Client): HeldToolOperations {
  return {
    async list() {
      const turns: HeldTurn[] = [];
      for await (const execution of client.workflow.list({ query: HELD_TURNS_QUERY })) {
        const handle = client.workflow.getHandle(execution.workflowId, execution.runId);
        // A turn resolved between the listing and the query is simply no longer held.
        const progress = await handle.query(turnProgressQuery).catch(() => null);
        if (progress?.held)
          turns.push({ workflowId: execution.workflowId, runId: execution.runId, held: progress.held });
      }
      return turns;
    },
    async resolve(workflowId, input) {
      try {
        return await client.workflow.getHandle(workflowId).executeUpdate(resolveHeldToolUpdate, { args: [input] });
      } catch (err) {
        throw await refusedDecision(client, workflowId, err);
      }
    },
  };
}

/** A turn that exists but holds no call: it was never held, is already resolved, or has ended. */
export const notHeld = (workflowId: string): ApiError =>
  conflict('NOT_HELD', `Turn ${workflowId} has no tool call held for an operator.`);

/**
 * The validator's refusal as refusedUpdate says. Temporal answers an update to a turn that has ended as it
 * answers one to no turn at all (NOT_FOUND), so ask which: only a turn that does not exist is 404.
 */
async function refusedDecision(client: Client, workflowId: string, err: unknown): Promise<Error> {
  if (err instanceof WorkflowNotFoundError) {
    const turn = await describeOrNull(client.workflow.getHandle(workflowId));
    return turn ? notHeld(workflowId) : notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);
  }
  if (!(err instanceof WorkflowUpdateFailedError)) return err instanceof Error ? err : new Error(String(err));
  return refusedUpdate(err.cause?.message ?? err.message, 'DECISION_REFUSED');
}
