import { isTemporalUnreachable } from '../../config/temporal-client';
import { answerWithin, cachedFor, CHECK_DEADLINE_MS, temporalCheck } from '../../observability/dependency-checks';

const never = () => new Promise<never>(() => undefined);

describe('dependency checks (observability/dependency-checks.ts)', () => {
  it('answerWithin gives up at the deadline with the error it is given, and passes an answer on', async () => {
    const started = Date.now();
    await expect(answerWithin(never(), () => new Error('late'), 50)).rejects.toThrow('late');
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(answerWithin(Promise.resolve(7), () => new Error('late'), 50)).resolves.toBe(7);
  });

  it('a Temporal call still retrying at the deadline fails as unreachable, with the gRPC deadline set for it', async () => {
    const deadlines: number[] = [];
    const connection = {
      withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
        deadlines.push(Number(deadline));
        return fn();
      },
    };
    const started = Date.now();
    const err: unknown = await temporalCheck(connection, never).catch((e: unknown) => e);
    expect(isTemporalUnreachable(err)).toBe(true);
    expect(Date.now() - started).toBeLessThan(CHECK_DEADLINE_MS + 1_000);
    expect(deadlines[0]).toBeLessThanOrEqual(started + CHECK_DEADLINE_MS + 50);
  });

  it('cachedFor runs the read once per period, a failure too', async () => {
    let reads = 0;
    const read = cachedFor(60_000, async () => {
      reads += 1;
      throw new Error('down');
    });
    await Promise.all([read(), read()].map((p) => p.catch(() => undefined)));
    await read().catch(() => undefined);
    expect(reads).toBe(1);
    let fresh = 0;
    const uncached = cachedFor(0, async () => ++fresh);
    expect([await uncached(), await uncached()]).toEqual([1, 2]);
  });
});
