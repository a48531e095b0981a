import { parkedTurns } from '../../db/repositories/parked-turns';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { explainingDatabase, rowsRead, type ExplainedStatement } from '../support/explained-reads';

/**
 * The turns parked on a tool call (db/repositories/parked-turns.ts), which `config diff` and `config apply` look for
 * on every change to a tool, on a database of many conversations none of which waits: the query reads the few calls
 * whose wait has not ended, not every conversation and its trail.
 */
describe('parked turns on a database of many conversations', () => {
  let tdb: TestDatabase;
  const CONVERSATIONS = 3000;
  const HOUR_MS = 3_600_000;
  const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
  const later = new Date(Date.now() + HOUR_MS).toISOString();
  const PARKED = { approval: id(900_001), held: id(900_002) };

  const PARKS = new Set(['MCP_TOOL_APPROVAL_REQUESTED', 'TOOL_HELD']);
  /** Conversations of 2 or 3 committed turns, and the rows of their turn 3, in order. */
  const TRAILS: [number, number, string[]][] = [
    [900_001, 2, ['USER_INPUT', 'MCP_TOOL_APPROVAL_REQUESTED']],
    [900_002, 2, ['USER_INPUT', 'TOOL_HELD']],
    // Waits not ended, but not waited on: decided, retried, failed, or on a turn since committed.
    [900_003, 2, ['MCP_TOOL_APPROVAL_REQUESTED', 'MCP_TOOL_APPROVAL_REJECTED']],
    [900_004, 2, ['TOOL_HELD', 'USER_INPUT']],
    [900_005, 2, ['MCP_TOOL_APPROVAL_REQUESTED', 'ENGINE_KNOWN_FAILURE']],
    [900_006, 3, ['MCP_TOOL_APPROVAL_REQUESTED']],
  ];

  /** Conversation `n`, its turn 3 writing `stages` in order; a park waits an hour. */
  async function trail(n: number, turnCount: number, stages: string[]): Promise<void> {
    await tdb.pool.query('INSERT INTO ce_conversation (conversation_id, turn_count) VALUES ($1, $2)', [
      id(n),
      turnCount,
    ]);
    for (const [i, stage] of stages.entries()) {
      const payload = {
        tool_code: 'loan.application.submit',
        call_index: 4,
        ...(PARKS.has(stage) && { expires_at: later }),
      };
      await tdb.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
         VALUES ($1, 3, $2, $3, $4)`,
        [id(n), stage, payload, `trail/${n}/${i}`]
      );
    }
  }

  beforeAll(async () => {
    tdb = await createTestDatabase();
    // Closed conversations of 2 committed turns, 7 rows a turn; one in three asked and got an approval long ago. In
    // bulk, triggers and foreign keys off (the retired-id trigger takes a lock per row), as a restore loads rows.
    await tdb.pool.query(`BEGIN; SET LOCAL session_replication_role = replica;
      INSERT INTO ce_conversation (conversation_id, turn_count)
        SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 2 FROM generate_series(1, ${CONVERSATIONS}) i;
      INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
        SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, t,
          CASE WHEN k = 0 THEN 'USER_INPUT' ELSE 'STEP_' || k END, '{"text": "hello"}', 'seed/' || i || '/' || t || '/' || k
        FROM generate_series(1, ${CONVERSATIONS}) i, generate_series(1, 2) t, generate_series(0, 6) k;
      INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
        SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, 2, s,
          jsonb_build_object('tool_code', 'loan.application.submit', 'call_index', 4,
                             'expires_at', to_char(now() - interval '30 days', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
          'seed/' || i || '/2/' || s
        FROM generate_series(1, ${CONVERSATIONS}, 3) i,
          unnest(ARRAY['MCP_TOOL_APPROVAL_REQUESTED', 'MCP_TOOL_APPROVAL_GRANTED']) s;
      COMMIT;`);
    for (const [n, turnCount, stages] of TRAILS) await trail(n, turnCount, stages);
    await tdb.pool.query('ANALYZE ce_conversation; ANALYZE ce_audit');
  }, 120_000);
  afterAll(async () => tdb.drop());

  it('finds the turns that wait, reading only the calls whose wait has not ended', async () => {
    const reads: ExplainedStatement[] = [];
    const db = explainingDatabase(tdb.db, (s) => reads.push(s));
    const parked = await parkedTurns(db, new Date(Date.now() - 10 * 60_000));
    expect(parked).toEqual([
      { conversationId: PARKED.approval, toolCode: 'loan.application.submit', waitsOn: 'approval' },
      { conversationId: PARKED.held, toolCode: 'loan.application.submit', waitsOn: 'held' },
    ]);
    expect(reads).toHaveLength(1);
    const [{ plan }] = reads as [ExplainedStatement];
    // The six unended waits, each looked up in its conversation: not the 3,006 conversations and their 45,000 rows.
    expect(rowsRead(plan, 'ce_conversation')).toBeLessThanOrEqual(6);
    expect(rowsRead(plan, 'ce_audit')).toBeLessThanOrEqual(30);
  });
});
