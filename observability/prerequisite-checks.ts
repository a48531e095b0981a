import type { Connection } from '@temporalio/client';
import { isNamespaceNotFound, isTemporalUnreachable } from '../config/temporal-client';
import { missingTurnSearchAttributes } from '../config/turn-search-attributes';
import { CONFIG_EMPTY_WARNING, isEmptyConfig } from '../core/config/empty';
import type { ConfigSnapshot, ConfigViolation } from '../core/config/types';
import { newerSchemaWarning, notMigratedMessage, schemaState, type MigrationFile } from '../db/migrate';
import { busyPoolOf, DATABASE_BUSY_MEANING, type PoolStats } from '../db/connection-loss';
import { connectionRefusalOf, serverMessageOf, sqlStateOf } from '../db/error-text';
import type { Database } from '../db/pool';
import { searchIndexProblem } from '../db/search-indexes';
import { connectionStringOf, type ToolsLogin } from '../db/tools-role';
import { refusalMessage, refusalReason } from './database-refusal';
import {
  CHECK_DATABASE_URL,
  CheckStalledError,
  DATABASE_BUSY,
  DATABASE_STALLED,
  databaseCheck,
  pooledCheck,
  temporalCheck,
} from './dependency-checks';
import {
  namespaceMissing,
  NAMESPACE_MISSING,
  NOT_MIGRATED,
  OK,
  SEARCH_ATTRIBUTES_MISSING,
  type CheckOutcome,
} from './prerequisite-problems';
import { checkToolsLogin } from './tools-login';

/** The Temporal namespace whose turn search attributes a process needs. */
export interface TemporalTarget {
  temporal: Pick<Connection, 'operatorService' | 'withDeadline'>;
  namespace: string;
}

/** The process's config store, as far as readiness reads it (db/config/store.ts). */
export interface ServedConfigSource {
  current(): Promise<ConfigSnapshot>;
  rejectedViolations(): readonly ConfigViolation[];
}

// A request for a turn and a readiness probe wait for these checks: each answers within CHECK_DEADLINE_MS.
export async function checkDatabase(db: Database, files: MigrationFile[]): Promise<CheckOutcome> {
  try {
    const state = await pooledCheck(db.$client, (client) => schemaState(client, files));
    if (state.changed.length > 0) {
      const message = 'applied migrations differ from this build: deploy the build that applied them';
      return {
        reason: 'migrations differ from this build',
        problem: 'DATABASE_NOT_MIGRATED',
        log: { fields: { changed: state.changed }, message },
      };
    }
    // The one rule of what "not migrated" is, the one `doctor` and the CLI commands apply.
    if (notMigratedMessage(state) === null) {
      if (state.unknown.length === 0) return OK;
      // A newer build's schema: the supported rollback state, so ready, but said (docs/operations.md).
      const warning = `migrated by a newer build (${state.unknown.join(', ')})`;
      return {
        ...OK,
        warning,
        log: { fields: { unknown: state.unknown }, message: newerSchemaWarning(state.unknown) },
      };
    }
    const pending = state.pending.map((m) => m.name);
    const message = `the database lacks ${pending.length} migration(s) this build needs: run \`convengine migrate\``;
    return { reason: NOT_MIGRATED, problem: 'DATABASE_NOT_MIGRATED', log: { fields: { pending }, message } };
  } catch (err) {
    const busy = busyPoolOf(err);
    if (busy !== null) return { reason: DATABASE_BUSY, problem: 'DATABASE_BUSY', log: busyLog(busy) };
    if (err instanceof CheckStalledError) {
      const message = `${err.message}: a stalled backend, a lock or an overloaded server (docs/runbook.md)`;
      return { reason: DATABASE_STALLED, problem: 'DATABASE_UNREACHABLE', log: { fields: {}, message } };
    }
    const refusal = connectionRefusalOf(err);
    if (refusal !== null) {
      // No retry mends it; the log names the database or role (not the password), readiness only the variable.
      const message = refusalMessage(refusal, connectionStringOf(db.$client), CHECK_DATABASE_URL);
      const log = { fields: { sqlState: sqlStateOf(err) }, message };
      return { reason: refusalReason(refusal, CHECK_DATABASE_URL), problem: 'DATABASE_UNREACHABLE', log };
    }
    // The server's or the pooler's own words when it answered (an unsupported startup parameter, a FATAL's reason).
    const said = serverMessageOf(err);
    const message =
      'the database is unreachable: check DATABASE_URL and that PostgreSQL is up' +
      (said === null ? '' : `; the server (or a pooler in front of it) said: ${said}`);
    return { reason: 'unreachable', problem: 'DATABASE_UNREACHABLE', log: { fields: { err }, message } };
  }
}

/**
 * What the log says of a busy database: how full the pool was, and that the database answers (no DATABASE_URL or
 * server to check): a pool too small for the load, a server too slow for it, or a statement held (a lock, a stopped
 * backend).
 */
export function busyLog(pool: PoolStats): { fields: { pool: PoolStats }; message: string } {
  const message =
    `the database is busy: ${DATABASE_BUSY_MEANING} (${pool.total} of ${pool.max} open, ${pool.idle} idle, ` +
    `${pool.waiting} waiting): the load outgrows the pool or the server, or a statement waits on a lock or a stopped ` +
    'backend';
  return { fields: { pool }, message };
}

export async function checkTemporal(targets: TemporalTarget): Promise<CheckOutcome> {
  const { namespace } = targets;
  try {
    const check = () => missingTurnSearchAttributes(targets.temporal, namespace);
    const missing = Object.keys(await temporalCheck(targets.temporal, check));
    if (missing.length === 0) return OK;
    const message = `namespace ${namespace} lacks the turn search attributes ${missing.join(', ')}: run \`convengine setup-temporal\``;
    return {
      reason: SEARCH_ATTRIBUTES_MISSING,
      problem: 'SEARCH_ATTRIBUTES_MISSING',
      log: { fields: { missing, namespace }, message },
    };
  } catch (err) {
    if (isNamespaceNotFound(err)) {
      const log = { fields: { namespace }, message: namespaceMissing(namespace) };
      return { reason: NAMESPACE_MISSING, problem: 'TEMPORAL_NAMESPACE_MISSING', log };
    }
    // Unreachable: a turn cannot start, so it is refused at once rather than after the client's own retries.
    const problem = isTemporalUnreachable(err) ? 'TEMPORAL_UNREACHABLE' : null;
    const message = `cannot check the search attributes of namespace ${namespace}`;
    return { reason: 'unreachable', problem, log: { fields: { err, namespace }, message } };
  }
}

/**
 * An empty config refuses every turn (503 CONFIG_EMPTY) but leaves the process ready: every replica reads the same
 * tables, so taking them out of service would only hide that code from callers, and a `seed` or `config apply` mends
 * it without a restart.
 */
const CONFIG_EMPTY: CheckOutcome = {
  reason: 'ok',
  problem: 'CONFIG_EMPTY',
  warning: CONFIG_EMPTY_WARNING,
  log: { fields: {}, message: CONFIG_EMPTY_WARNING },
};

/**
 * The config the process serves: empty (above), or a warning while it refuses the tables and serves a stored snapshot (turns run on
 * that one; docs/operations.md). The store logs the refusal itself (logConfigRejections) when it first sees it.
 */
export async function configCheck(config: ServedConfigSource | undefined): Promise<CheckOutcome> {
  if (!config) return OK;
  try {
    const { version, rows } = await databaseCheck(config.current());
    if (isEmptyConfig(rows)) return CONFIG_EMPTY;
    if (config.rejectedViolations().length === 0) return OK;
    return { ...OK, warning: refusedConfigWarning(version) };
  } catch {
    // No config validates at all (every turn fails CONFIG_INVALID), or the database is down (its own check says so).
    const count = config.rejectedViolations().length;
    return count === 0
      ? OK
      : {
          ...OK,
          warning: 'the current config is refused and no stored snapshot validates: run convengine validate-config',
        };
  }
}

/** What readiness and `doctor` say while the tables are refused and a stored snapshot is served. */
export function refusedConfigWarning(servedVersion: string): string {
  return `the current config is refused: serving stored snapshot ${servedVersion}; run convengine validate-config`;
}

/** What /readyz, open to anyone, says of the console search's missing indexes; the log says which and why. */
export const SEARCH_INDEXES_WARNING =
  'the console search (q) lacks its trigram indexes and reads whole tables, slow on a large database: ' +
  '`convengine doctor` says why and what to do';

/**
 * The console search's indexes (db/search-indexes.ts), for a process that serves it: a warning without them, never
 * unready (the search still finds what it should, and every replica shares the database).
 */
export async function searchIndexCheck(db: Database): Promise<CheckOutcome> {
  try {
    const problem = await databaseCheck(searchIndexProblem(db.$client), db.$client);
    if (problem === null) return OK;
    return { ...OK, warning: SEARCH_INDEXES_WARNING, log: { fields: {}, message: problem } };
  } catch {
    // A database that does not answer: its own check says so.
    return OK;
  }
}

/**
 * The SQL tools' login, for a process that runs them: not ready without it, but no problem that refuses a turn (the
 * worker refuses none; a turn that calls no SQL tool still runs).
 */
export async function toolsCheck(login: ToolsLogin | undefined): Promise<CheckOutcome | undefined> {
  return login === undefined ? undefined : { problem: null, ...(await checkToolsLogin(login)) };
}
