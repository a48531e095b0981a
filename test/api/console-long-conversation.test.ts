/**
 * The console on a long conversation (200 turns, 68 audit rows each; the history keeps 50): its reads are a few
 * indexed statements, never one pass over the whole audit trail per turn, and they stay within the console's read
 * budget, so an end user's read on the same pool is answered meanwhile.
 */
import type { Client } from '@temporalio/client';
import type { TurnPageRequest, TurnSummary } from '../../api/console/ports';
import { CONSOLE_READ_CONCURRENCY } from '../../api/console/read-budget';
import { consolePorts } from '../../api/console/wiring';
import { buildApi } from '../../api/app';
import { conversationQueries } from '../../api/db-queries';
import type { ConsolePorts } from '../../api/console/ports';
import { openDatabase, type DbHandle } from '../../db/pool';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { fakePorts } from '../support/fake-ports';

const ID = '00000000-0000-4000-8000-00000000c200';
const TURNS = 200;
const ROWS_PER_TURN = 68;

const summary = (n: number): TurnSummary => ({
  workflowId: `turn-${ID}-${n}`,
  runId: `run-${n}`,
  turnNumber: n,
  status: 'COMPLETED',
  outcome: null,
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  closedAt: null,
  earlierRuns: [],
});

/** The statements sent on the pool, and the most that ran at once. */
function countStatements(handle: DbHandle) {
  const seen = { statements: 0, running: 0, most: 0 };
  const query = handle.pool.query.bind(handle.pool) as (...args: unknown[]) => Promise<unknown>;
  (handle.pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
    seen.statements++;
    seen.most = Math.max(seen.most, ++seen.running);
    try {
      return await query(...args);
    } finally {
      seen.running--;
    }
  };
  return {
    seen,
    reset: () => Object.assign(seen, { statements: 0, most: 0 }),
  };
}

describe('the console on a 200-turn conversation (api/console/queries.ts, api/routes/console/conversations.ts)', () => {
  let tdb: TestDatabase;
  let handle: DbHandle;
  let app: ReturnType<typeof buildApi>;
  let console: ConsolePorts;
  let counter: ReturnType<typeof countStatements>;

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(
      "INSERT INTO ce_conversation (conversation_id, turn_count, status) VALUES ($1, $2, 'RUNNING')",
      [ID, TURNS]
    );
    // Every turn's rows, its USER_INPUT first; the history holds the last 50 turns only.
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
       SELECT $1::uuid, t, CASE WHEN r = 1 THEN 'USER_INPUT' ELSE 'STEP_ENTER' END,
              CASE WHEN r = 1 THEN jsonb_build_object('text', 'message ' || t) ELSE jsonb_build_object('step', 'S' || r) END,
              'turn-' || $1::text || '-' || t || '@run/' || r || '/row'
         FROM generate_series(1, $2::int) t, generate_series(1, $3::int) r ORDER BY t, r`,
      [ID, TURNS, ROWS_PER_TURN]
    );
    await tdb.pool.query(
      `INSERT INTO ce_conversation_history (conversation_id, turn_number, user_input, assistant_output)
       SELECT $1::uuid, t, 'message ' || t, to_jsonb('reply ' || t) FROM generate_series($2::int - 49, $2::int) t`,
      [ID, TURNS]
    );
    handle = openDatabase(tdb.url, { max: 10, connectionTimeoutMillis: 2_000 });
    counter = countStatements(handle);
    // Visibility's answer, a range of turn numbers (api/console/temporal-inspector.ts).
    const turns = async (_id: string, { after, limit }: TurnPageRequest) => {
      const through = Math.min(after + limit, TURNS);
      const numbers = Array.from({ length: Math.max(0, through - after) }, (_, i) => after + i + 1);
      return { turns: numbers.map(summary), next: through < TURNS ? through : null };
    };
    const real = consolePorts(handle.db, {} as Client, { taskQueue: 'convengine-turns', temporalUiUrl: undefined });
    console = { ...real, parked: async () => new Map(), inspector: { ...real.inspector, turns } };
    const conversations = conversationQueries(handle.db);
    app = buildApi({
      ports: { ...fakePorts({}), conversations },
      messageMaxBytes: 8192,
      logLevel: 'silent',
      console,
    });
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await tdb?.drop();
  });

  const turnsPage = (query = '') => app.inject({ url: `/api/v1/console/conversations/${ID}/turns${query}` });

  it('reads a page of turns in a few statements, and pages through all 200 by `next`', async () => {
    counter.reset();
    const first = await turnsPage();
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.turns).toHaveLength(50);
    expect([body.limit, body.next]).toEqual([50, '50']);
    expect(body.turns[0]).toEqual(expect.objectContaining({ turnNumber: 1, userInput: 'message 1' }));
    expect(first.headers.link).toBe(`</api/v1/console/conversations/${ID}/turns?limit=50&after=50>; rel="next"`);
    // The conversation with its history and standing (4), and the page's USER_INPUT rows (1): not a pass per turn.
    expect(counter.seen.statements).toBe(5);

    const seen: number[] = [];
    let after: string | null = '0';
    while (after !== null) {
      const page: { turns: { turnNumber: number; userInput: string }[]; next: string | null } = (
        await turnsPage(`?limit=64&after=${after}`)
      ).json();
      seen.push(...page.turns.map((t) => t.turnNumber));
      expect(page.turns.map((t) => t.userInput)).toEqual(page.turns.map((t) => `message ${t.turnNumber}`));
      after = page.next;
    }
    expect(seen).toEqual(Array.from({ length: TURNS }, (_, i) => i + 1));
    expect((await turnsPage('?limit=201')).statusCode).toBe(400);
  });

  it("reads one turn's audit rows in one statement", async () => {
    counter.reset();
    const rows = await console.turnAudits(ID, 120);
    expect(rows).toHaveLength(ROWS_PER_TURN);
    expect(rows[0]).toEqual(expect.objectContaining({ stage: 'USER_INPUT', turnNumber: 120, callKey: '1' }));
    expect(counter.seen.statements).toBe(1);
  });

  it("keeps many operators' reads within the console's budget while an end user's read is answered", async () => {
    counter.reset();
    const operators = Array.from({ length: 12 }, (_, i) =>
      i % 2 ? turnsPage(`?limit=200`) : console.turnAudits(ID, i + 1).then(() => ({ statusCode: 200 }))
    );
    const started = Date.now();
    const user = await conversationQueries(handle.db).conversation(ID);
    const userMs = Date.now() - started;
    expect(user?.turnCount).toBe(TURNS);
    // Well under the pool's 10 s wait, which the old code's reads made end users hit (503 DATABASE_UNREACHABLE).
    expect(userMs).toBeLessThan(5_000);
    expect((await Promise.all(operators)).map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    // The console's reads never held more than its budget of connections; the user's read is the one more.
    expect(counter.seen.most).toBeLessThanOrEqual(CONSOLE_READ_CONCURRENCY + 1);
    expect(counter.seen.statements).toBe(6 * 5 + 6 + 4);
  });
});
