import { WorkflowNotFoundError, type WorkflowClient } from '@temporalio/client';
import { temporalTurnEnds } from '../../../api/turns/turn-ended';

/** Which Temporal answers end a turn the rows show in flight (api/turns/turn-ended.ts), against a fake client. */
describe('temporalTurnEnds', () => {
  const reader = (describe: () => Promise<unknown>) =>
    temporalTurnEnds({ getHandle: () => ({ describe }) } as unknown as Pick<WorkflowClient, 'getHandle'>);
  const withStatus = (name: string) => reader(async () => ({ status: { name } }));
  const id = '00000000-0000-4000-8000-000000000001';

  it('a running or paused turn has not ended; a closed one has, named by its status', async () => {
    expect(await withStatus('RUNNING')(id, 2)).toBeNull();
    expect(await withStatus('PAUSED')(id, 2)).toBeNull();
    expect(await withStatus('UNKNOWN')(id, 2)).toBeNull();
    expect(await withStatus('TERMINATED')(id, 2)).toEqual({ failureType: 'TURN_TERMINATED' });
    expect(await withStatus('TIMED_OUT')(id, 2)).toEqual({ failureType: 'TURN_TIMED_OUT' });
  });

  it('a turn Temporal no longer knows has ended; an unreachable Temporal answers nothing (the caller keeps it)', async () => {
    const gone = reader(async () => {
      throw new WorkflowNotFoundError('not found', `turn-${id}-2`, undefined);
    });
    expect(await gone(id, 2)).toEqual({ failureType: 'TURN_GONE' });
    const down = reader(async () => {
      throw new Error('14 UNAVAILABLE');
    });
    await expect(down(id, 2)).rejects.toThrow('UNAVAILABLE');
  });
});
