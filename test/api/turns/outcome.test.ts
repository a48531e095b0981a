import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { CancelledFailure, RetryState, TerminatedFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import type { TurnRef } from '../../../api/ports';
import { closedTurnReply, rootFailure } from '../../../api/turns/outcome';

const closedBy = (cause: Error) => new WorkflowFailedError('closed', cause, RetryState.NON_RETRYABLE_FAILURE);
const REF: TurnRef = { conversationId: 'c', turnNumber: 1, workflowId: 'turn-c-1', runId: 'r1' };
/** The turn did not commit (committed-reply.ts reads the database). */
const uncommitted = async () => null;

/** How a closed turn reads in the POST's reply (api/turns/outcome.ts), against a fake client. */
describe('rootFailure and closedTurnReply', () => {
  it('a run ended in Temporal (terminated, cancelled, timed out) reads as GET lastTurn shows it: not retryable', () => {
    expect(rootFailure(closedBy(new TerminatedFailure('operator')))).toMatchObject({
      type: 'TURN_TERMINATED',
      retryable: false,
    });
    expect(rootFailure(closedBy(new CancelledFailure('Workflow canceled')))).toMatchObject({
      type: 'TURN_CANCELLED',
      retryable: false,
    });
    const timedOut = new TimeoutFailure('timed out', undefined, TimeoutType.START_TO_CLOSE);
    expect(rootFailure(closedBy(timedOut))).toMatchObject({ type: 'TURN_TIMED_OUT', retryable: false });
  });

  it('follows the run a reset started from the closed one, and answers as that run ends', async () => {
    const runs: Record<string, { result(): Promise<unknown>; describe(): Promise<unknown> }> = {
      r1: {
        result: () => Promise.reject(closedBy(new TerminatedFailure('resetting workflow'))),
        describe: async () => ({
          raw: { workflowExecutionInfo: { execution: { runId: 'r1' } }, workflowExtendedInfo: { resetRunId: 'r2' } },
        }),
      },
      r2: { result: async () => ({ outcome: 'ANSWERED' }), describe: async () => ({ raw: {} }) },
    };
    const handle = {
      client: { getHandle: (_id: string, runId: string) => runs[runId] },
      executeUpdate: () => Promise.reject(new Error('workflow execution already completed')),
    } as unknown as WorkflowHandle;
    expect(await closedTurnReply(handle, REF, uncommitted)).toEqual({
      kind: 'COMPLETED',
      ref: { ...REF, runId: 'r2' },
      result: { outcome: 'ANSWERED' },
    });
  });

  it('a terminated run that no reset followed is the turn’s end', async () => {
    const run = {
      result: () => Promise.reject(closedBy(new TerminatedFailure('operator'))),
      describe: async () => ({ raw: { workflowExecutionInfo: { execution: { runId: 'r1' } } } }),
    };
    const handle = { client: { getHandle: () => run } } as unknown as WorkflowHandle;
    expect(await closedTurnReply(handle, REF, uncommitted)).toMatchObject({
      kind: 'FAILED',
      ref: REF,
      failureType: 'TURN_TERMINATED',
      retryable: false,
    });
  });

  it('a run ended after its turn committed answers the committed turn; a failed run does not ask', async () => {
    const committedReply = { kind: 'COMPLETED', ref: REF, result: { outcome: 'ANSWERED' } } as const;
    const closedWith = (failure: Error) => {
      const run = {
        result: () => Promise.reject(closedBy(failure)),
        describe: async () => ({ raw: { workflowExecutionInfo: { execution: { runId: 'r1' } } } }),
      };
      return { client: { getHandle: () => run } } as unknown as WorkflowHandle;
    };
    const asked: TurnRef[] = [];
    const committed = async (ref: TurnRef) => (asked.push(ref), committedReply as never);
    expect(await closedTurnReply(closedWith(new TerminatedFailure('operator')), REF, committed)).toEqual(
      committedReply
    );
    expect(await closedTurnReply(closedWith(new CancelledFailure('cancelled')), REF, committed)).toEqual(
      committedReply
    );
    expect(asked).toEqual([REF, REF]);
    expect(await closedTurnReply(closedWith(new Error('boom')), REF, committed)).toMatchObject({
      kind: 'FAILED',
      failureType: 'TURN_FAILED',
    });
    expect(asked).toHaveLength(2);
  });
});
