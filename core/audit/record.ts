import type { JsonObject } from '../json';

/** Intent and state at the moment an audit was emitted (a step may change them after). */
export interface AuditEmitMeta {
  intent: string;
  state: string;
}

/**
 * One audit event. Steps return them in order; the activity that emits them writes them to
 * ce_audit under `<turn id>@<run id>/<call key>/<index>` so an activity retried within its run writes no
 * duplicates, and each run of the turn rows of its own.
 * `payload` excludes `_meta`, which the writer adds from the session.
 */
export interface AuditRecord {
  stage: string;
  payload: JsonObject;
  /** Set by emitters that know the session at emission time; the writer falls back to the step's final session. */
  meta?: AuditEmitMeta;
}

export function audit(stage: string, payload: JsonObject = {}): AuditRecord {
  return { stage, payload };
}

/** Where one reader of a conversation's audit trail is (an API page, an audit stream): the last audit id it has. */
export interface AuditCursor {
  conversationId: string;
  afterAuditId: number;
}

/**
 * What one read of several cursors (the audit streams' feed) brings back for each: at most `rows` rows and
 * `maxBytes` payload bytes (the payloads as JSON text, summed), except that the first row after the cursor is taken
 * whatever its size, so that a stream behind a row larger than its share still moves on.
 */
export interface AuditCursorShare {
  rows: number;
  maxBytes: number;
}

/** Where a page of one conversation's audit rows starts and what bounds it (API pages and traces). */
export interface AuditPageBounds {
  afterAuditId: number;
  /** At most this many rows. */
  limit: number;
  /** At most this many payload bytes (the payloads as JSON text, summed)… */
  maxBytes: number;
  /** …except that the first row is taken whatever its size (a paged read must move its cursor on). */
  takeFirst: boolean;
}
