import type { Pool, PoolClient } from 'pg';
import { MIGRATE_LOCK_WAIT_DEFAULT_MS } from '../config/env';

/** Arbitrary constant: serializes concurrent migrators (two workers starting at once). */
export const MIGRATION_LOCK_KEY = 7_233_001;

export interface MigrationLockWait {
  /** How long to wait for another migrator before failing (MigrationLockTimeoutError). */
  timeoutMs?: number;
  /** Where a wait is reported: after `reportAfterMs` (5 s), then every `reportEveryMs` (30 s). */
  log?: (line: string) => void;
  reportAfterMs?: number;
  reportEveryMs?: number;
  /** Between tries of the lock (200 ms). */
  pollMs?: number;
}

/** The session holding the migration lock, as pg_stat_activity shows it. */
export interface MigrationLockHolder {
  pid: number;
  applicationName: string;
  clientAddr: string | null;
  backendStart: string;
  state: string | null;
  stateChange: string | null;
}

export class MigrationLockTimeoutError extends Error {
  readonly type = 'MIGRATION_LOCK_TIMEOUT';
  constructor(waitedMs: number, holder: MigrationLockHolder | null) {
    super(`gave up after ${Math.round(waitedMs / 1000)} s (MIGRATE_LOCK_WAIT_MS) ${waitingFor(holder)}`);
  }
}

/**
 * Runs `work` holding the migration lock on one client of `pool` throughout: a session-level advisory lock, as the
 * migrations run in several transactions and some outside any (CREATE INDEX CONCURRENTLY). Its unlock is checked: one
 * this session did not hold means the statements did not all reach one server session (a transaction-mode pooler),
 * and the lock may still be held by another. A client whose unlock failed or did not answer true is discarded, not
 * pooled again: closing its session releases whatever it holds.
 */
export async function withMigrationLock<T>(
  pool: Pool,
  wait: MigrationLockWait,
  work: (client: PoolClient) => Promise<T>
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await takeMigrationLock(client, wait);
    const result = await work(client).catch(async (err: unknown) => {
      broken = await unlockMigrations(client).then(
        () => undefined,
        (e: Error) => e
      );
      throw err;
    });
    broken = await unlockMigrations(client).then(
      () => undefined,
      (e: Error) => e
    );
    if (broken) throw broken;
    return result;
  } finally {
    client.release(broken ?? false);
  }
}

async function unlockMigrations(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ unlocked: boolean }>('SELECT pg_advisory_unlock($1) AS unlocked', [
    MIGRATION_LOCK_KEY,
  ]);
  if (rows[0]?.unlocked !== true)
    throw new Error(
      'the migration lock was not held by this session at the end of the migration: its statements reached ' +
        'different server sessions (a transaction-mode pooler in DATABASE_URL?), and the lock may still be held by ' +
        'one of them; the engine needs session pooling (docs/operations.md, "Connection poolers")'
    );
}

/**
 * Polls rather than waits in pg_advisory_lock: a session blocked in that call holds a snapshot, and CREATE INDEX
 * CONCURRENTLY in the lock holder waits for every older snapshot, so a second migrator waiting there would deadlock
 * with the first. A wait is reported with the holder, and bounded.
 */
async function takeMigrationLock(client: PoolClient, wait: MigrationLockWait): Promise<void> {
  const { timeoutMs = MIGRATE_LOCK_WAIT_DEFAULT_MS, log = () => undefined, pollMs = 200 } = wait;
  const { reportAfterMs = 5_000, reportEveryMs = 30_000 } = wait;
  const started = Date.now();
  let nextReport = reportAfterMs;
  for (;;) {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [
      MIGRATION_LOCK_KEY,
    ]);
    if (rows[0]?.locked) return;
    const waited = Date.now() - started;
    if (waited >= timeoutMs) throw new MigrationLockTimeoutError(waited, await migrationLockHolder(client));
    if (waited >= nextReport) {
      log(`migrate: waited ${Math.round(waited / 1000)} s ${waitingFor(await migrationLockHolder(client))}`);
      nextReport += reportEveryMs;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function waitingFor(holder: MigrationLockHolder | null): string {
  const lock = `for the migration lock (advisory lock ${MIGRATION_LOCK_KEY} on this database)`;
  if (holder === null) return `${lock}, which another session held`;
  const client = holder.clientAddr === null ? '' : ` from ${holder.clientAddr}`;
  const state = holder.state === null ? '' : `, ${holder.state} since ${holder.stateChange}`;
  return (
    `${lock}, held by pid ${holder.pid} (application_name "${holder.applicationName}"${client}, connected ` +
    `${holder.backendStart}${state}): another migrate, or a session left holding it; ` +
    `SELECT pg_terminate_backend(${holder.pid}) ends it if no migration runs there`
  );
}

/** Who holds the migration lock in this database, from pg_locks and pg_stat_activity; null once nobody does. */
export async function migrationLockHolder(client: Pick<PoolClient, 'query'>): Promise<MigrationLockHolder | null> {
  const { rows } = await client.query<MigrationLockHolder>(
    `SELECT a.pid, a.application_name AS "applicationName", a.client_addr::text AS "clientAddr",
            to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') AS "backendStart",
            a.state, to_char(a.state_change AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"') AS "stateChange"
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      LIMIT 1`,
    [MIGRATION_LOCK_KEY]
  );
  return rows[0] ?? null;
}
