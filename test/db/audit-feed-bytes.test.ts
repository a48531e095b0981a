import { AuditFeed } from '../../api/audit-feed';
import { conversationQueries } from '../../api/db-queries';
import type { AuditRowView } from '../../api/ports';
import type { AuditCursor } from '../../core/audit';
import { insertAudits } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import { silentLogger } from '../../observability/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';

const KiB = 1024;
const HUGE = 'h'.repeat(700 * KiB);

/** A row's payload bytes as the read measures them at least: JSON text (PostgreSQL's adds spaces). */
const bytesOf = (rows: readonly AuditRowView[]) =>
  rows.reduce((sum, row) => sum + Buffer.byteLength(JSON.stringify(row.payload)), 0);

/**
 * The audit streams' read (api/audit-feed.ts over api/db-queries.ts auditsAfter) bounded by payload bytes as well as
 * rows: a trail with a few huge rows is read a share at a time, never many MiB in one poll, and every row still
 * reaches its stream, once and in order, resumed from the last row handed out (as Last-Event-ID resumes it).
 */
describe('the audit feed reads huge rows within its byte budget', () => {
  let tdb: TestDatabase;
  const BIG = '00000000-0000-4000-8000-00000000fb01';
  const SMALL = '00000000-0000-4000-8000-00000000fb02';
  const written = new Map<string, string[]>();

  beforeAll(async () => {
    tdb = await createTestDatabase();
    const trails: [string, string[]][] = [
      [BIG, ['s1', 'H1', 'H2', 's2', 's3', 'H3', 's4', 'H4', 'H5', 'H6', 's5']],
      [SMALL, ['t1', 't2', 't3']],
    ];
    for (const [conversationId, keys] of trails) {
      await ensureConversation(tdb.db, conversationId);
      written.set(conversationId, keys);
      await insertAudits(
        tdb.db,
        keys.map((key) => ({
          conversationId,
          turnNumber: 1,
          stage: 'S',
          payload: { key, text: key.startsWith('H') ? HUGE : 'small' },
          idempotencyKey: `bytes/${conversationId}/${key}`,
          workflowId: null,
          runId: null,
        }))
      );
    }
  });
  afterAll(async () => tdb.drop());

  it('reads each cursor within its bytes (a larger row alone), and every row once, in order, by resuming', async () => {
    const { auditsAfter } = conversationQueries(tdb.db);
    const share = { rows: 100, maxBytes: 1000 * KiB };
    const cursors = new Map([BIG, SMALL].map((id) => [id, 0]));
    const got = new Map<string, string[]>([BIG, SMALL].map((id) => [id, []]));
    for (let poll = 0; poll < 20; poll++) {
      const asked: AuditCursor[] = [...cursors].map(([conversationId, afterAuditId]) => ({
        conversationId,
        afterAuditId,
      }));
      const rows = await auditsAfter(asked, share);
      if (rows.length === 0) break;
      for (const id of cursors.keys()) {
        const own = rows.filter((r) => r.conversationId === id);
        if (own.length > 1) expect(bytesOf(own)).toBeLessThanOrEqual(share.maxBytes);
        got.get(id)?.push(...own.map((r) => String(r.payload['key'])));
        const last = own.at(-1);
        if (last) cursors.set(id, last.auditId);
      }
    }
    expect(got).toEqual(written);
  });

  it('hands a stream every row of a trail of huge rows through the feed, no read past its budget', async () => {
    const source = conversationQueries(tdb.db);
    const readBytes: number[] = [];
    const shutdown = new AbortController();
    const feed = new AuditFeed(
      {
        auditsAfter: async (cursors, share) => {
          const rows = await source.auditsAfter(cursors, share);
          if (rows.length > 1) readBytes.push(bytesOf(rows));
          return rows;
        },
      },
      { pollIntervalMs: 5, log: silentLogger(), shutdown: shutdown.signal }
    );
    const keys = written.get(BIG) ?? [];
    const handed: string[] = [];
    let done = () => {};
    const all = new Promise<void>((resolve) => (done = resolve));
    const stop = feed.subscribe(BIG, 0, async (rows) => {
      handed.push(...rows.map((r) => String(r.payload['key'])));
      if (handed.length >= keys.length) done();
    });
    try {
      await all;
      expect(handed).toEqual(keys);
      // One stream's share is 1 MiB: 700 KiB rows come one a read, and no read of several rows passes it.
      expect(readBytes.every((bytes) => bytes <= 1024 * KiB)).toBe(true);
    } finally {
      stop();
      shutdown.abort();
    }
  });
});
