import { replyMismatches } from './support/invariants';
import { createPrng, distinctSorted, seedFromEnv } from './support/prng';
import { checkStack, report } from './support/report';
import { FaultSchedule } from './support/schedule';
import { ReliabilityStack } from './support/stack';
import { demoTraffic, runTraffic, TrafficMonitor, turnCount } from './support/traffic';

/**
 * Scenario 1: two `convengine worker` processes; one of them is SIGKILLed at seeded random points
 * across 50 turns of the loan (Example 3, three turns) and MOVE_CONNECTIONS (two turns) flows, and
 * a replacement is started after each kill. Whatever the victim had in flight — a workflow task, a
 * DB step, an LLM call, a tool call — Temporal hands to the other worker once its timeout passes
 * (sticky workflow tasks after the sticky schedule-to-start timeout, activities when their
 * heartbeats stop — the 10 s heartbeat timeout — or their start-to-close timeout, whichever comes
 * first), so turns stall, but none may be lost or applied twice. Kills fall in the first 22 turns so the last stall ends within the budget.
 */
const TRAFFIC = demoTraffic({ 'loan-confirmation': 10, 'move-connections': 10 });
const KILLS = 5;

describe('reliability: worker processes SIGKILLed mid-turn (issue #8, scenario 1)', () => {
  const prng = createPrng(seedFromEnv());
  let stack: ReliabilityStack;

  beforeAll(async () => {
    console.log(`worker-kill: RELIABILITY_SEED=${prng.seed}`);
    stack = await ReliabilityStack.start({ temporal: 'embedded', workers: 2 });
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('completes each of 50 turns exactly once across 5 SIGKILLs and restarts, applying no write twice', async () => {
    const started = Date.now();
    const monitor = new TrafficMonitor();
    const victims: number[] = [];
    const kill = async () => {
      const victim = prng.pick(stack.workers);
      victims.push(victim.pid);
      await stack.killWorker(victim);
      await stack.startWorker();
    };
    const schedule = new FaultSchedule(distinctSorted(prng, KILLS, 3, 22), monitor, kill, () => prng.int(0, 500));
    const records = await runTraffic(stack.gateway(), TRAFFIC, {
      concurrency: 6,
      turnDeadlineMs: 280_000,
      monitor,
      diagnose: (id) => stack.diagnose(id),
      onTurn: (_turn, completed) => schedule.onProgress(completed),
    });
    await schedule.drain();
    const { violations, evidence } = await checkStack(stack, records);
    const facts = {
      seed: prng.seed,
      kills: schedule.done,
      'replacement workers': schedule.done,
      'kill points (turns done)': schedule.thresholds.join('/'),
      'turns in flight at kills': schedule.inFlightAtFault.join('/'),
    };
    report('worker-kill', records, facts, evidence, started);

    expect(records.flatMap((r) => r.turns)).toHaveLength(turnCount(TRAFFIC));
    expect(schedule.done).toBe(KILLS);
    expect(replyMismatches(records)).toEqual([]);
    expect(violations).toEqual([]);
    // Each loan was submitted: one write effect per conversation, never two.
    expect(stack.tools.counters.totalWriteEffects()).toBe(10);
  }, 480_000);
});
