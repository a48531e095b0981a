import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { AuditCursorShare } from '../core/audit';
import type { AuditRowView, ConversationQueries } from './ports';

/** Writes rows to one stream's client; resolves when the client has taken them (or is gone). */
export type AuditDelivery = (rows: readonly AuditRowView[]) => Promise<void>;

/**
 * Rows one read may bring back, shared among its cursors (at least `MIN_ROWS_PER_CURSOR` each, at most a page):
 * a stream catching up on a long trail gets it in pages, and one read of many streams stays bounded in memory.
 */
const ROWS_PER_READ = 5000;
const MIN_ROWS_PER_CURSOR = 100;
const MAX_ROWS_PER_CURSOR = 1000;

/**
 * Payload bytes one read may bring back, shared as the rows are: rows are bounded in size only by what a step
 * writes, so a few huge ones would otherwise make one poll load many MiB. A row larger than its cursor's share is
 * still read, alone (so its stream moves on), which bounds a read by the shares plus one row per stream at most.
 */
const BYTES_PER_READ = 4 * 1024 * 1024;
const MIN_BYTES_PER_CURSOR = 64 * 1024;
const MAX_BYTES_PER_CURSOR = 1024 * 1024;

/** One cursor's part of a read's `total`, at least `min` and at most `max`. */
const shareOf = (total: number, cursors: number, min: number, max: number) =>
  Math.min(max, Math.max(min, Math.floor(total / cursors)));

/** Each cursor's share of one read of `cursors` cursors. */
export function auditCursorShare(cursors: number): AuditCursorShare {
  return {
    rows: shareOf(ROWS_PER_READ, cursors, MIN_ROWS_PER_CURSOR, MAX_ROWS_PER_CURSOR),
    maxBytes: shareOf(BYTES_PER_READ, cursors, MIN_BYTES_PER_CURSOR, MAX_BYTES_PER_CURSOR),
  };
}

interface Subscriber {
  conversationId: string;
  /** The last audit id handed to this subscriber. */
  after: number;
  deliver: AuditDelivery;
  /** Still writing its last rows: left out of the next reads, so a slow reader holds one batch, not every row. */
  delivering: boolean;
}

export interface AuditFeedOptions {
  pollIntervalMs: number;
  log: FastifyBaseLogger;
  /** Aborted when the API closes: the feed stops reading. */
  shutdown: AbortSignal;
}

/**
 * The one reader of the audit table for every open audit stream of this API process. Each tick reads the
 * rows after every ready stream's cursor in one query, and hands each stream its own. A hundred open streams
 * cost one query per poll interval, not a hundred, on the pool that end users' turns share. The feed runs
 * only while a stream is open.
 */
export class AuditFeed {
  private readonly subscribers = new Set<Subscriber>();
  private running = false;
  private failing = false;

  constructor(
    private readonly source: Pick<ConversationQueries, 'auditsAfter'>,
    private readonly opts: AuditFeedOptions
  ) {}

  /** Hands `deliver` the conversation's rows after `afterAuditId` as they are written, until the returned call. */
  subscribe(conversationId: string, afterAuditId: number, deliver: AuditDelivery): () => void {
    const subscriber: Subscriber = { conversationId, after: afterAuditId, deliver, delivering: false };
    this.subscribers.add(subscriber);
    if (!this.running) {
      this.running = true;
      void this.run().finally(() => (this.running = false));
    }
    return () => this.subscribers.delete(subscriber);
  }

  private async run(): Promise<void> {
    while (this.subscribers.size > 0 && !this.opts.shutdown.aborted) {
      await this.tick();
      await sleep(this.opts.pollIntervalMs, undefined, { signal: this.opts.shutdown }).catch(() => undefined);
    }
  }

  private async tick(): Promise<void> {
    const ready = [...this.subscribers].filter((s) => !s.delivering);
    if (ready.length === 0) return;
    const cursors = new Map<string, number>();
    for (const s of ready) cursors.set(s.conversationId, Math.min(cursors.get(s.conversationId) ?? s.after, s.after));
    let rows: AuditRowView[];
    try {
      rows = await this.source.auditsAfter(
        [...cursors].map(([conversationId, afterAuditId]) => ({ conversationId, afterAuditId })),
        auditCursorShare(cursors.size)
      );
    } catch (err) {
      // The database is away: the streams stay open and the next tick tries again; said once per outage.
      if (!this.failing) this.opts.log.warn({ err, streams: ready.length }, 'audit stream poll failed; retrying');
      this.failing = true;
      return;
    }
    this.failing = false;
    const byConversation = new Map<string, AuditRowView[]>();
    for (const row of rows) {
      const own = byConversation.get(row.conversationId);
      if (own) own.push(row);
      else byConversation.set(row.conversationId, [row]);
    }
    for (const s of ready) {
      const own = (byConversation.get(s.conversationId) ?? []).filter((row) => row.auditId > s.after);
      if (own.length > 0 && this.subscribers.has(s)) this.hand(s, own);
    }
  }

  private hand(subscriber: Subscriber, rows: readonly AuditRowView[]): void {
    subscriber.after = (rows.at(-1) as AuditRowView).auditId;
    subscriber.delivering = true;
    subscriber
      .deliver(rows)
      .catch((err: unknown) => {
        // A stream whose client cannot be written to ends with its socket; it gets nothing more.
        this.opts.log.warn({ err, conversationId: subscriber.conversationId }, 'audit stream write failed');
        this.subscribers.delete(subscriber);
      })
      .finally(() => (subscriber.delivering = false));
  }
}
