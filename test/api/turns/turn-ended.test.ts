import { WorkflowFailedError, WorkflowNotFoundError, type WorkflowClient } from '@temporalio/client';
import { ApplicationFailure, RetryState } from '@temporalio/common';
import { temporalTurnEnds } from '../../../api/turns/turn-ended';

/** Which Temporal answers end a turn the rows show in flight (api/turns/turn-ended.ts), against a fake client. */
describe('temporalTurnEnds', () => {
  const OWN = 'own-queue';
  const reader = (describe: () => Promise<unknown>) =>
    temporalTurnEnds({ getHandle: () => ({ describe }) } as unknown as Pick<WorkflowClient, 'getHandle'>, OWN);
  const withStatus = (name: string, taskQueue = OWN) => reader(async () => ({ status: { name }, taskQueue }));
  const id = '00000000-0000-4000-8000-000000000001';

  it('a running or paused turn has not ended; a closed one has, named by its status', async () => {
    expect(await withStatus('RUNNING')(id, 2)).toBeNull();
    expect(await withStatus('PAUSED')(id, 2)).toBeNull();
    expect(await withStatus('UNKNOWN')(id, 2)).toBeNull();
    expect(await withStatus('TERMINATED')(id, 2)).toEqual({ failureType: 'TURN_TERMINATED', retryable: false });
    expect(await withStatus('TIMED_OUT')(id, 2)).toEqual({ failureType: 'TURN_TIMED_OUT', retryable: false });
  });

  it("a failed turn reads as its POST answered it: its step's failure type and retryability", async () => {
    const failedOn = (type: string, nonRetryable: boolean) => {
      const own = ApplicationFailure.create({ type, message: 'down', nonRetryable });
      own.failure = { message: 'down', applicationFailureInfo: { type, nonRetryable } };
      const error = new WorkflowFailedError('Workflow execution failed', own, RetryState.NON_RETRYABLE_FAILURE);
      const handle = {
        describe: async () => ({ status: { name: 'FAILED' }, taskQueue: OWN }),
        result: () => Promise.reject(error),
      };
      return temporalTurnEnds({ getHandle: () => handle } as unknown as Pick<WorkflowClient, 'getHandle'>, OWN);
    };
    expect(await failedOn('INTERNAL', false)(id, 2)).toEqual({ failureType: 'INTERNAL', retryable: true });
    expect(await failedOn('CONFIG_INVALID', true)(id, 2)).toEqual({ failureType: 'CONFIG_INVALID', retryable: false });
  });

  it('a turn Temporal no longer knows has ended; an unreachable Temporal answers nothing (the caller keeps it)', async () => {
    const gone = reader(async () => {
      throw new WorkflowNotFoundError('not found', `turn-${id}-2`, undefined);
    });
    expect(await gone(id, 2)).toEqual({ failureType: 'TURN_GONE', retryable: false });
    const down = reader(async () => {
      throw new Error('14 UNAVAILABLE');
    });
    await expect(down(id, 2)).rejects.toThrow('UNAVAILABLE');
  });

  it("another deployment's run under the turn's id (a shared namespace) is not this turn: it has ended and is gone", async () => {
    for (const status of ['RUNNING', 'FAILED', 'TERMINATED']) {
      expect(await withStatus(status, 'other-queue')(id, 2)).toEqual({ failureType: 'TURN_GONE', retryable: false });
    }
  });
});
