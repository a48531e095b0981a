/**
 * `convengine whatif --since <age>` measures the age back from the database's now(), the clock every turn's row is
 * dated by: a CLI host whose clock runs ahead of the database's (or behind) selects the conversations of the same
 * half hour as one in step, and the report names the instant the database measured.
 */
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { whatifInProcess } from './whatif-recorded';

const MINUTE = 60_000;

describe('whatif --since <age> with the CLI host clock skewed against the database', () => {
  let tdb: TestDatabase;
  const ids = { recent: randomUUID(), older: randomUUID() };
  beforeAll(async () => {
    tdb = await createTestDatabase();
    // A conversation with a turn 10 minutes ago and one with a turn 50 minutes ago, both by the database's clock.
    for (const [id, minutesAgo] of [
      [ids.recent, 10],
      [ids.older, 50],
    ] as const) {
      await tdb.pool.query('INSERT INTO ce_conversation (conversation_id, turn_count) VALUES ($1, 1)', [id]);
      await tdb.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key, created_at)
         VALUES ($1, 1, 'USER_INPUT', $2, $3, now() - $4 * interval '1 minute')`,
        [id, JSON.stringify({ text: 'hello' }), `${id}/input`, minutesAgo]
      );
    }
  });
  afterAll(async () => tdb?.drop());
  afterEach(() => jest.useRealTimers());

  /** Only Date is faked (new Date() and Date.now() read `skewMs` off the real clock): timers and I/O run as ever. */
  function skewHostClock(skewMs: number): void {
    jest.useFakeTimers({
      now: Date.now() + skewMs,
      advanceTimers: true,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'requestAnimationFrame',
        'cancelAnimationFrame',
        'requestIdleCallback',
        'cancelIdleCallback',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
  }

  /** `whatif --since 30m --json` with the process clock `skewMs` off the real one: the conversations and the instant. */
  async function since30m(skewMs: number): Promise<{ ids: string[]; sinceOffsetMs: number }> {
    skewHostClock(skewMs);
    const run = await whatifInProcess(tdb.url, ['--config', 'current', '--since', '30m', '--json']);
    jest.useRealTimers();
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const report = JSON.parse(run.stdout) as { since: string; conversations: { conversationId: string }[] };
    const { rows } = await tdb.pool.query<{ at: Date }>("SELECT now() - interval '30 minutes' AS at");
    return {
      ids: report.conversations.map((c) => c.conversationId),
      sinceOffsetMs: Date.parse(report.since) - (rows[0] as { at: Date }).at.getTime(),
    };
  }

  it.each([
    ['45 minutes ahead', 45 * MINUTE],
    ['45 minutes behind', -45 * MINUTE],
  ])(
    'selects the conversation with a turn 10 minutes ago, not the one 50 minutes ago, with the host %s',
    async (_, skew) => {
      const selected = await since30m(skew);
      expect(selected.ids).toEqual([ids.recent]);
      expect(Math.abs(selected.sinceOffsetMs)).toBeLessThan(MINUTE);
    }
  );
});
