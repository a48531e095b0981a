import { desc, eq, sql, type SQL } from 'drizzle-orm';
import { MAX_CONFIG_JSON_DEPTH } from '../../core/config/json-depth';
import type { ConfigRows, ConfigSnapshot } from '../../core/config/types';
import { exceedsJsonDepth, isJsonObject } from '../../core/json';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import { ceConfigRevision, ceConfigSnapshot } from '../schema';
import { snapshotOf, type ConfigReader } from './load';

/** The database or an open transaction. */
type SnapshotWriter = Pick<Database, 'insert'>;

/**
 * Records that a store began serving `snapshot` at config revision `revision`: the row is inserted on the
 * version's first serving, and on a later one only its last_served_* move. The guard on the revision keeps this
 * to one write per version and revision however many stores start on it (workers, the API, restarts), and lets
 * a store that read an older revision but got here late (a slow worker) leave a newer record alone. Written
 * only when a store's served version changes, never per turn; idempotent, so it may be sent again after a
 * lost connection.
 */
export async function recordServedSnapshot(db: Database, snapshot: ConfigSnapshot, revision: number): Promise<void> {
  await retryOnConnectionLoss(() => writeServedSnapshot(db, snapshot, revision));
}

/**
 * Records, inside the transaction that wrote them (`config apply`, `convengine seed`), validated config rows as
 * the snapshot in service from the revision that transaction leaves: the newest valid config is then a fact of
 * the database, which every store falls back to when later rows do not validate, whether or not any store read
 * these rows before they were broken.
 */
export async function recordWrittenSnapshot(tx: SnapshotWriter & ConfigReader, rows: ConfigRows): Promise<string> {
  const snapshot = snapshotOf(rows);
  const [counter] = await tx.select({ revision: ceConfigRevision.revision }).from(ceConfigRevision);
  await writeServedSnapshot(tx, snapshot, counter?.revision ?? 0);
  return snapshot.version;
}

async function writeServedSnapshot(writer: SnapshotWriter, snapshot: ConfigSnapshot, revision: number): Promise<void> {
  await writer
    .insert(ceConfigSnapshot)
    .values({ version: snapshot.version, rowsJson: snapshot.rows, lastServedRevision: revision })
    .onConflictDoUpdate({
      target: ceConfigSnapshot.version,
      set: { lastServedRevision: sql`excluded.last_served_revision`, lastServedAt: sql`now()` },
      setWhere: sql`${ceConfigSnapshot.lastServedRevision} < excluded.last_served_revision`,
    });
}

/** The stored rows of `version`, or undefined when no store ever served it. */
export async function readStoredSnapshot(db: Database, version: string): Promise<ConfigRows | undefined> {
  const [stored] = await retryOnConnectionLoss(() =>
    db
      .select({ rowsJson: ceConfigSnapshot.rowsJson })
      .from(ceConfigSnapshot)
      .where(eq(ceConfigSnapshot.version, version))
  );
  return stored && usableRows(stored.rowsJson);
}

/** Table, row and column above a value: how much deeper than a value a stored snapshot may nest. */
const SNAPSHOT_LEVELS_ABOVE_VALUES = 3;

/**
 * A stored snapshot's rows, or undefined when they cannot be a snapshot a store wrote: not an object, or nested
 * deeper than validated config can be (hashing them to check their version would overflow the stack).
 */
function usableRows(rowsJson: unknown): ConfigRows | undefined {
  if (!isJsonObject(rowsJson) || exceedsJsonDepth(rowsJson, MAX_CONFIG_JSON_DEPTH + SNAPSHOT_LEVELS_ABOVE_VALUES))
    return undefined;
  return rowsJson as unknown as ConfigRows;
}

/**
 * ORDER BY for the snapshots last in service, the last first. Not by created_at: a version's row is created once, on
 * its first serving, so config A applied again after B would still count as older than B. A row stored before
 * migration 0017 has revision 0: every serving since records its revision, so such a row was last served before
 * all the others and rightly ranks below them, among its kind by last_served_at (0017 set it to created_at, the
 * order they had). An older build run after 0017 (a rollback) also writes revision 0, but with last_served_at
 * now(): a revision-0 row served after every row that has a revision is therefore the newest, and ranks first.
 * (Such a build records no later serving of a version it finds stored; that one stays ranked by its revision.)
 */
export function lastServedFirst(reader: ConfigReader): SQL[] {
  const lastRevisioned = reader
    .select({ at: sql`max(${ceConfigSnapshot.lastServedAt})` })
    .from(ceConfigSnapshot)
    .where(sql`${ceConfigSnapshot.lastServedRevision} > 0`);
  const storedByOlderBuild = sql`(${ceConfigSnapshot.lastServedRevision} = 0 AND ${ceConfigSnapshot.lastServedAt} > coalesce((${lastRevisioned}), '-infinity'))`;
  return [desc(storedByOlderBuild), desc(ceConfigSnapshot.lastServedRevision), desc(ceConfigSnapshot.lastServedAt)];
}

/** The `limit` snapshots last in service, the last first (lastServedFirst). */
export async function lastServedSnapshots(db: Database, limit: number): Promise<ConfigRows[]> {
  const stored = await retryOnConnectionLoss(() =>
    db
      .select({ rowsJson: ceConfigSnapshot.rowsJson })
      .from(ceConfigSnapshot)
      .orderBy(...lastServedFirst(db))
      .limit(limit)
  );
  return stored.flatMap((s) => usableRows(s.rowsJson) ?? []);
}
