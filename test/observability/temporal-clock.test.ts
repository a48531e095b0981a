import { TemporalClock } from '../../observability/temporal-clock';
import {
  CLOCK_SAMPLE_EVERY_MS,
  readTurnPollers,
  sampleTemporalClock,
  turnWorkerIdentity,
} from '../../observability/turn-pollers';

/**
 * A worker's age by Temporal's clock, whatever this host's (observability/temporal-clock.ts): jest's fake timers
 * move this host's clocks (Date.now, performance.now), Temporal's is `skewMs` behind them.
 */
describe("pollers judged by Temporal's clock", () => {
  const worker = turnWorkerIdentity('7@host-a');
  const gone = turnWorkerIdentity('8@host-b');
  beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-03-01T12:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  /** A Temporal whose clock is `skewMs` behind this host's, listing each poller's access `msAgo` on its clock. */
  function temporal(skewMs: number) {
    const accessed = new Map<string, number>();
    let skew = skewMs;
    const serverNow = () => Date.now() - skew;
    let reads = 0;
    const describeTaskQueue = async () => ({
      reads: ++reads,
      pollers: [...accessed].map(([identity, at]) => ({
        identity,
        lastAccessTime: { seconds: Math.floor(at / 1000), nanos: (at % 1000) * 1e6 },
      })),
    });
    const connection = {
      workflowService: { describeTaskQueue },
      withDeadline: <R>(_deadline: number, fn: () => Promise<R>) => fn(),
    } as unknown as Parameters<typeof readTurnPollers>[0];
    return {
      poll: (identity: string, msAgo = 0) => accessed.set(identity, serverNow() - msAgo),
      read: (clock: TemporalClock) => readTurnPollers(connection, 'default', 'turns', clock),
      /** The API's start (api/server.ts): its reads of the pollers until they prove Temporal's clock. */
      start: (clock: TemporalClock, signal: AbortSignal) =>
        sampleTemporalClock(connection, { namespace: 'default', taskQueue: 'turns' }, signal, clock),
      reads: () => reads,
      /** Steps Temporal's clock, so that it is `ms` behind this host's. */
      step: (ms: number) => (skew = ms),
    };
  }

  it('counts a polling worker when this host is 90 s ahead, once it has seen a poll happen, and warns', async () => {
    const server = temporal(90_000);
    const clock = new TemporalClock();
    server.poll(worker, 20_000);
    await server.read(clock);
    jest.advanceTimersByTime(10_000);
    server.poll(worker, 2_000); // an idle worker's next long poll
    expect(await server.read(clock)).toMatchObject({ current: 1, older: 0, unmarked: 0 });
    expect(clock.skewWarning()).toMatch(/^this host's clock is at least 8\d s ahead of Temporal's/);
    // It stays counted while it polls, though this host's clock says its polls are 90 s old.
    jest.advanceTimersByTime(50_000);
    expect(await server.read(clock)).toMatchObject({ current: 1, older: 0, unmarked: 0 });
  });

  it('stops counting a worker gone for minutes when this host is 5 min behind', async () => {
    const server = temporal(-300_000);
    const clock = new TemporalClock();
    server.poll(worker, 1_000);
    server.poll(gone, 1_000);
    expect(await server.read(clock)).toMatchObject({ current: 2, older: 0, unmarked: 0 });
    jest.advanceTimersByTime(180_000); // host-b went away; host-a still polls
    server.poll(worker);
    expect(await server.read(clock)).toMatchObject({ current: 1, older: 0, unmarked: 0 });
    expect(clock.skewWarning()).toMatch(/^this host's clock is at least 300 s behind Temporal's/);
  });

  it("goes by this host's clock while the clocks agree, without a warning", async () => {
    const server = temporal(0);
    const clock = new TemporalClock();
    server.poll(worker, 1_000);
    server.poll(gone, 80_000);
    expect(await server.read(clock)).toMatchObject({ current: 1, older: 0, unmarked: 0 });
    jest.advanceTimersByTime(5_000);
    server.poll(worker);
    await server.read(clock);
    expect(clock.now()).toBe(Date.now());
    expect(clock.skewWarning()).toBeUndefined();
  });

  it("learns the bounds again once a clock was stepped: Temporal's 10 min forward", async () => {
    const server = temporal(0);
    const clock = new TemporalClock();
    const pollAndRead = () => {
      server.poll(worker);
      return server.read(clock);
    };
    await pollAndRead();
    jest.advanceTimersByTime(10_000);
    await pollAndRead();
    server.step(-600_000);
    jest.advanceTimersByTime(10_000);
    await pollAndRead();
    expect(Date.now() - clock.now()).toBe(-600_000);
  });

  it('an API started 90 s ahead counts its workers at its first decision, minutes after a start no probe followed', async () => {
    const server = temporal(90_000);
    const clock = new TemporalClock();
    const stopped = new AbortController();
    server.poll(worker, 20_000);
    server.start(clock, stopped.signal);
    await jest.advanceTimersByTimeAsync(30_000);
    server.poll(worker); // the idle worker's next long poll, seen by the reads after the start
    await jest.advanceTimersByTimeAsync(150_000);
    server.poll(worker, 30_000);
    // An operator's decision three minutes in, the first read no start read preceded (no /readyz probe came).
    expect(await server.read(clock)).toMatchObject({ current: 1, older: 0, unmarked: 0 });
    expect(clock.skewWarning()).toMatch(/^this host's clock is at least \d+ s ahead of Temporal's/);
    // The reads stopped once the clock was proven: the start's and its next every CLOCK_SAMPLE_EVERY_MS, no more.
    const reads = server.reads();
    expect(reads).toBeLessThanOrEqual(2 + 30_000 / CLOCK_SAMPLE_EVERY_MS + 1);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(server.reads()).toBe(reads);
    stopped.abort();
  });

  it('stops reading when the API stops, and after two minutes when no worker polls', async () => {
    const server = temporal(0);
    const stopped = new AbortController();
    server.start(new TemporalClock(), stopped.signal);
    await jest.advanceTimersByTimeAsync(300_000);
    expect(server.reads()).toBe(1 + 120_000 / CLOCK_SAMPLE_EVERY_MS);
    const again = temporal(0);
    const leaving = new AbortController();
    again.start(new TemporalClock(), leaving.signal);
    await jest.advanceTimersByTimeAsync(25_000);
    leaving.abort();
    await jest.advanceTimersByTimeAsync(60_000);
    expect(again.reads()).toBe(3);
  });
});
