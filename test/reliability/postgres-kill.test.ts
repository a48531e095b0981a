import { Client as PgClient } from 'pg';
import { ADMIN_DATABASE_URL } from '../support/database';
import { replyMismatches } from './support/invariants';
import { createPrng, seedFromEnv, type Prng } from './support/prng';
import { checkStack, report } from './support/report';
import { ReliabilityStack } from './support/stack';
import { demoTraffic, runTraffic, TrafficMonitor, turnCount } from './support/traffic';

/**
 * Scenario 3: every PostgreSQL connection of the application — both workers' pools and the
 * gateway's — is terminated (`pg_terminate_backend`) again and again at seeded random intervals
 * while turns run. Queries in flight fail; activities are retried by Temporal (audits and the
 * commit are idempotent); the gateway's client resends under the same idempotency key; a turn
 * whose activity runs out of attempts ends FAILED and is re-run through retryTurn.
 */
const TRAFFIC = demoTraffic({ 'loan-confirmation': 5, 'move-connections': 5 });
const MAX_ROUNDS = 400;

class ConnectionKiller {
  rounds = 0;
  terminated = 0;
  /** Rounds that struck while at least one turn was in flight. */
  midTurnRounds = 0;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: string,
    private readonly prng: Prng,
    private readonly monitor: TrafficMonitor
  ) {}

  start(): void {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const admin = new PgClient({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    try {
      while (!this.stopped && this.rounds < MAX_ROUNDS) {
        await new Promise((resolve) => setTimeout(resolve, this.prng.int(100, 700)));
        // pg_terminate_backend only in the select list: WHERE conditions may run in any order,
        // and the filter must pick the rows before anything is terminated.
        const { rows } = await admin.query<{ ok: boolean }>(
          'SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [this.database]
        );
        this.rounds += 1;
        this.terminated += rows.filter((r) => r.ok).length;
        if (this.monitor.inFlight > 0) this.midTurnRounds += 1;
      }
    } finally {
      await admin.end();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

describe('reliability: PostgreSQL connections terminated mid-turn (issue #8, scenario 3)', () => {
  const prng = createPrng(seedFromEnv());
  let stack: ReliabilityStack;

  beforeAll(async () => {
    console.log(`postgres-kill: RELIABILITY_SEED=${prng.seed}`);
    stack = await ReliabilityStack.start({ temporal: 'embedded', workers: 2 });
  }, 180_000);
  afterAll(async () => stack?.stop(), 60_000);

  it('completes every turn exactly once while connections keep dying, applying no write twice', async () => {
    const started = Date.now();
    const monitor = new TrafficMonitor();
    const killer = new ConnectionKiller(stack.tdb.name, prng, monitor);
    killer.start();
    const records = await runTraffic(stack.gateway(), TRAFFIC, {
      concurrency: 5,
      turnDeadlineMs: 60_000,
      monitor,
      diagnose: (id) => stack.diagnose(id),
    }).finally(() => killer.stop());
    const { violations, evidence } = await checkStack(stack, records);
    const facts = {
      seed: prng.seed,
      'kill rounds': killer.rounds,
      'rounds mid-turn': killer.midTurnRounds,
      'connections terminated': killer.terminated,
    };
    report('postgres-kill', records, facts, evidence, started);

    expect(records.flatMap((r) => r.turns)).toHaveLength(turnCount(TRAFFIC));
    expect(killer.midTurnRounds).toBeGreaterThan(0);
    expect(killer.terminated).toBeGreaterThan(0);
    expect(replyMismatches(records)).toEqual([]);
    expect(violations).toEqual([]);
    expect(stack.tools.counters.totalWriteEffects()).toBe(5);
  }, 300_000);
});
