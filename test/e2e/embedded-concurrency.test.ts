import { readFileSync, rmSync } from 'node:fs';
import { Client } from 'pg';
import { embeddedLayout } from '../../db/embedded';
import { newHome, startEmbeddedStack, type EmbeddedStack } from '../support/embedded-stack';
import { parallelConversations, WIRE_PROTOCOL_ERROR } from '../support/parallel-conversations';

const CONVERSATIONS = 50;
const ROUNDS = 3;

/**
 * Issue #20: 50 conversations at once through the HTTP API of `convengine start` on its default
 * stack (embedded PostgreSQL, our dev server, scripted LLM), three rounds. On PGlite this lost
 * turns and logged wire-protocol errors; every connection now has its own session.
 */
describe('50 parallel conversations on the default embedded stack (issue #20)', () => {
  const home = newHome();
  let stack: EmbeddedStack;
  let db: Client;

  beforeAll(async () => {
    stack = await startEmbeddedStack(home);
    db = new Client({ connectionString: stack.databaseUrl });
    await db.connect();
  }, 180_000);

  afterAll(async () => {
    await db?.end();
    await stack?.process.stop(30_000);
    rmSync(home, { recursive: true, force: true });
  });

  it('answers every turn with 200 and stores each turn once, round after round', async () => {
    const seen: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const result = await parallelConversations(stack.apiUrl, CONVERSATIONS);
      console.info(`round ${round}: ${CONVERSATIONS} conversations in ${(result.wallMs / 1000).toFixed(1)} s`);
      expect(result.statuses.filter((s) => s !== 200)).toEqual([]);
      expect(result.statuses).toHaveLength(CONVERSATIONS * result.turnsPerConversation);
      expect(new Set(result.conversationIds).size).toBe(CONVERSATIONS);

      const { rows } = await db.query<{ turns: number; history: number; distinct_turns: number }>(
        `SELECT c.turn_count AS turns, count(h.history_id)::int AS history,
                count(DISTINCT h.turn_number)::int AS distinct_turns
           FROM ce_conversation c LEFT JOIN ce_conversation_history h USING (conversation_id)
          WHERE c.conversation_id = ANY($1::uuid[]) GROUP BY c.conversation_id, c.turn_count`,
        [result.conversationIds]
      );
      const expected = { turns: result.turnsPerConversation, history: result.turnsPerConversation };
      expect(rows).toHaveLength(CONVERSATIONS);
      for (const row of rows) expect(row).toEqual({ ...expected, distinct_turns: result.turnsPerConversation });
      seen.push(...result.conversationIds);
    }
    const total = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM ce_conversation');
    expect(total.rows[0]?.n).toBe(seen.length);
    // A shared two-core machine runs a round in 5 s alone and in a minute beside other test runs.
  }, 900_000);

  it('logs no wire-protocol error, neither in the stack output nor in the server log', () => {
    expect(stack.process.tail(1_000_000)).not.toMatch(WIRE_PROTOCOL_ERROR);
    const serverLog = readFileSync(embeddedLayout(home).logFile, 'utf8');
    expect(serverLog).not.toMatch(WIRE_PROTOCOL_ERROR);
    expect(serverLog).not.toMatch(/FATAL|PANIC/);
  });
});
