import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityContext } from '../../../activities/runtime/activity-context';
import { currentAttempt, runAsAttempt } from '../../../activities/runtime/attempt';
import { runningAsLocalActivity } from '../../../activities/runtime/local-attempt';

describe('the current activity context (activities/runtime/activity-context.ts)', () => {
  it('is null outside an activity, where Context.current() throws', () => {
    expect(() => Context.current()).toThrow(/not initialized/);
    expect(activityContext()).toBeNull();
    expect(currentAttempt()).toBe(1);
    expect(runningAsLocalActivity()).toBe(false);
  });

  it('is the context Context.current() returns inside an activity, with its attempt and locality', async () => {
    const env = new MockActivityEnvironment({ attempt: 3, isLocal: true });
    const seen = await env.run(async () => ({
      same: activityContext() === Context.current(),
      attempt: currentAttempt(),
      local: runningAsLocalActivity(),
    }));
    expect(seen).toEqual({ same: true, attempt: 3, local: true });
    expect(activityContext()).toBeNull();
  });

  it('leaves the attempt to the in-process runner when it sets one', async () => {
    await expect(runAsAttempt(2, async () => currentAttempt())).resolves.toBe(2);
  });
});
