import { replyMismatches } from './support/invariants';
import { createPrng, distinctSorted, seedFromEnv } from './support/prng';
import { checkStack, report } from './support/report';
import { FaultSchedule } from './support/schedule';
import { ReliabilityStack } from './support/stack';
import { demoTraffic, runTraffic, TrafficMonitor, turnCount } from './support/traffic';

/**
 * Scenario 2: the Temporal dev server runs as its own process in persistent mode (`convengine
 * devserver --persist <file>`) and is SIGKILLed and started again on the same port and file at
 * seeded random points while turns are in flight. Workers and the gateway's client reconnect on
 * their own; running workflows, activities and timers resume from the journal. The client resends
 * a request whose connection broke (same idempotency key), which attaches to the turn already running.
 */
const TRAFFIC = demoTraffic({ 'loan-confirmation': 5, 'move-connections': 5 });
const RESTARTS = 3;

describe('reliability: persistent dev server restarted mid-run (issue #8, scenario 2)', () => {
  const prng = createPrng(seedFromEnv());
  let stack: ReliabilityStack;

  beforeAll(async () => {
    console.log(`devserver-restart: RELIABILITY_SEED=${prng.seed}`);
    stack = await ReliabilityStack.start({ temporal: 'process', workers: 2 });
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('completes every turn exactly once across SIGKILL + restart of the server, applying no write twice', async () => {
    const started = Date.now();
    const monitor = new TrafficMonitor();
    const downtimes: number[] = [];
    const restart = async () => {
      const downMs = prng.int(0, 3_000);
      downtimes.push(downMs);
      await stack.restartDevServer(downMs);
    };
    const points = distinctSorted(prng, RESTARTS, 2, turnCount(TRAFFIC) - 8);
    const schedule = new FaultSchedule(points, monitor, restart, () => prng.int(0, 400));
    const records = await runTraffic(stack.gateway(), TRAFFIC, {
      concurrency: 5,
      turnDeadlineMs: 150_000,
      monitor,
      diagnose: (id) => stack.diagnose(id),
      onTurn: (_turn, completed) => schedule.onProgress(completed),
    });
    await schedule.drain();
    const { violations, evidence } = await checkStack(stack, records);
    const facts = {
      seed: prng.seed,
      'server restarts': schedule.done,
      'restart points (turns done)': schedule.thresholds.join('/'),
      'turns in flight at restarts': schedule.inFlightAtFault.join('/'),
      'downtimes ms': downtimes.join('/'),
    };
    report('devserver-restart', records, facts, evidence, started);

    expect(records.flatMap((r) => r.turns)).toHaveLength(turnCount(TRAFFIC));
    expect(schedule.done).toBe(RESTARTS);
    expect(replyMismatches(records)).toEqual([]);
    expect(violations).toEqual([]);
    expect(stack.tools.counters.totalWriteEffects()).toBe(5);
  }, 300_000);
});
