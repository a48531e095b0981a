import { AuditFeed } from '../../api/audit-feed';
import type { AuditRowView } from '../../api/ports';
import type { AuditCursor, AuditCursorShare } from '../../core/audit';
import { silentLogger } from '../../observability/logger';
import { auditRow } from '../support/fake-ports';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const conversation = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

interface Read {
  cursors: AuditCursor[];
  share: AuditCursorShare;
}

/** A feed over a table where every conversation has rows 1..`rowsEach` (ids are made unique per conversation). */
function feedOver(rowsEach: number) {
  const reads: Read[] = [];
  const shutdown = new AbortController();
  const idOf = (conversationId: string, n: number) => Number(conversationId.slice(-6)) * 1000 + n;
  const feed = new AuditFeed(
    {
      auditsAfter: async (cursors, share) => {
        reads.push({ cursors: [...cursors], share });
        return cursors.flatMap((c) =>
          Array.from({ length: rowsEach }, (_, i) => auditRow(c.conversationId, idOf(c.conversationId, i + 1)))
            .filter((r) => r.auditId > c.afterAuditId)
            .slice(0, share.rows)
        );
      },
    },
    { pollIntervalMs: 10, log: silentLogger(), shutdown: shutdown.signal }
  );
  return { feed, reads, shutdown, idOf };
}

describe('the audit feed (api/audit-feed.ts)', () => {
  it('shares a read budget of rows and bytes among its cursors: a page each for a few streams, less for many', async () => {
    const MiB = 1024 * 1024;
    for (const [streams, expected] of [
      [3, { rows: 1000, maxBytes: MiB }],
      [10, { rows: 500, maxBytes: Math.floor((4 * MiB) / 10) }],
      [60, { rows: 100, maxBytes: Math.floor((4 * MiB) / 60) }],
      [100, { rows: 100, maxBytes: 64 * 1024 }],
    ] as const) {
      const { feed, reads, shutdown } = feedOver(0);
      const stops = Array.from({ length: streams }, (_, i) => feed.subscribe(conversation(i + 1), 0, async () => {}));
      try {
        // Waits for the first read of every stream (polls are 10 ms apart, later on a loaded machine), not a fixed time.
        const deadline = Date.now() + 5_000;
        while (!reads.some((r) => r.cursors.length === streams) && Date.now() < deadline) await sleep(10);
        const full = reads.find((r) => r.cursors.length === streams);
        expect({ streams, share: full?.share }).toEqual({ streams, share: expected });
      } finally {
        stops.forEach((stop) => stop());
        shutdown.abort();
      }
    }
  });

  it('leaves a stream out of the reads while it writes its rows, then reads on from where it was', async () => {
    const { feed, reads, shutdown, idOf } = feedOver(3);
    const slow = conversation(1);
    const handed: AuditRowView[][] = [];
    let release = () => {};
    const stop = feed.subscribe(slow, 0, (rows) => {
      handed.push([...rows]);
      return new Promise<void>((resolve) => (release = resolve));
    });
    try {
      await sleep(60);
      // One read handed the three rows; while they are being written, nothing more is read for this stream.
      expect(reads).toHaveLength(1);
      expect(handed.map((rows) => rows.map((r) => r.auditId))).toEqual([[1, 2, 3].map((n) => idOf(slow, n))]);
      release();
      await sleep(40);
      expect(reads.length).toBeGreaterThan(1);
      expect(reads.slice(1).every((r) => r.cursors[0]?.afterAuditId === idOf(slow, 3))).toBe(true);
      expect(handed).toHaveLength(1);
      stop();
      const after = reads.length;
      await sleep(40);
      // No stream left: the feed stops reading (at most the read of the tick already under way).
      expect(reads.length).toBeLessThanOrEqual(after + 1);
    } finally {
      stop();
      shutdown.abort();
    }
  });

  it('reads once per conversation, from the earliest cursor of its ready streams', async () => {
    const { feed, reads, shutdown, idOf } = feedOver(3);
    const id = conversation(7);
    const got: number[][] = [[], []];
    const stops = [
      feed.subscribe(id, idOf(id, 2), async (rows) => void got[0]?.push(...rows.map((r) => r.auditId))),
      feed.subscribe(id, 0, async (rows) => void got[1]?.push(...rows.map((r) => r.auditId))),
    ];
    try {
      await sleep(40);
      expect(got).toEqual([[idOf(id, 3)], [1, 2, 3].map((n) => idOf(id, n))]);
      // The first stream's own read, then the two read together from the second's (earlier) cursor.
      expect(reads.every((r) => r.cursors.length === 1)).toBe(true);
      expect(reads[1]?.cursors).toEqual([{ conversationId: id, afterAuditId: 0 }]);
    } finally {
      stops.forEach((stop) => stop());
      shutdown.abort();
    }
  });
});
