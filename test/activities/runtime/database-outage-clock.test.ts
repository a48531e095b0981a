import { asyncLocalStorage, type Context } from '@temporalio/activity';
import { attemptStartInterceptor, outageWaitFor } from '../../../activities/runtime/database-outage';
import { BOOKKEEPING_RETRY, BOOKKEEPING_TIMEOUT_MS, outageWaitMs, stepSpecNamed } from '../../../core/turn/steps';

/**
 * How long an attempt waits out an unreachable database (activities/runtime/database-outage.ts) is measured on the
 * worker's clock from the attempt's start, so a worker clock off Temporal's neither waits past the attempt's
 * start-to-close (behind) nor skips the wait (ahead). Jest's fake timers are the worker's clocks.
 */
describe('an attempt waiting out a database outage on a skewed worker clock', () => {
  const STEP = 'PipelineEnd';
  const unreachable = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const share = outageWaitMs(stepSpecNamed(STEP)?.retry ?? BOOKKEEPING_RETRY);
  beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-03-01T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  /** An attempt Temporal scheduled when its clock (`skewMs` behind the worker's) read now, started on the worker. */
  function startAttempt(skewMs: number): Context {
    const info = {
      currentAttemptScheduledTimestampMs: Date.now() - skewMs,
      startToCloseTimeoutMs: BOOKKEEPING_TIMEOUT_MS,
    };
    const context = { info } as unknown as Context;
    attemptStartInterceptor(context);
    return context;
  }
  const waitAfter = (context: Context, ranMs: number) => {
    jest.advanceTimersByTime(ranMs);
    return asyncLocalStorage.run(context, () => outageWaitFor(STEP, unreachable));
  };

  it('has a share of the outage window to wait (the premise)', () => {
    expect(share).toBe(12_000);
  });

  it('waits no longer than its start-to-close leaves, on a worker 60 s behind Temporal', () => {
    // 20 s of 30 s run: 5 s are left before the 5 s margin, not the 12 s share.
    expect(waitAfter(startAttempt(-60_000), 20_000)).toBe(5_000);
  });

  it('still waits its share on a worker 60 s ahead of Temporal', () => {
    expect(waitAfter(startAttempt(60_000), 1_000)).toBe(share);
  });

  it('waits within [0, its share] for an attempt whose start it did not see, however far the clocks are apart', () => {
    const unseen = (skewMs: number) =>
      ({
        info: {
          currentAttemptScheduledTimestampMs: Date.now() - skewMs,
          startToCloseTimeoutMs: BOOKKEEPING_TIMEOUT_MS,
        },
      }) as unknown as Context;
    expect(waitAfter(unseen(600_000), 0)).toBe(0);
    expect(waitAfter(unseen(-600_000), 0)).toBe(share);
  });
});
