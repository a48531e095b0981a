import type { Connection } from '@temporalio/client';
import { isNamespaceNotFound, isTemporalUnreachable } from '../config/temporal-client';
import { missingTurnSearchAttributes } from '../config/turn-search-attributes';
import { CONFIG_EMPTY_WARNING, isEmptyConfig } from '../core/config/empty';
import type { ConfigSnapshot, ConfigViolation } from '../core/config/types';
import { newerSchemaWarning, notMigratedMessage, readMigrations, schemaState, type MigrationFile } from '../db/migrate';
import { busyPoolOf, type PoolStats } from '../db/connection-loss';
import { connectionRefusalOf, serverMessageOf, sqlStateOf } from '../db/error-text';
import type { Database } from '../db/pool';
import { searchIndexProblem } from '../db/search-indexes';
import { connectionStringOf, type ToolsLogin } from '../db/tools-role';
import type { Deployment, DeploymentMismatchError } from '../db/deployment';
import { DEPLOYMENT_MISMATCH, deploymentCheck } from './deployment-check';
import { refusalMessage, refusalReason } from './database-refusal';
import { cachedFor, CHECK_DATABASE_URL, DATABASE_BUSY, databaseCheck, temporalCheck } from './dependency-checks';
import type { Logger } from './logger';
import { checkToolsLogin } from './tools-login';

/**
 * What a turn needs before it can run, beyond a reachable database and Temporal: every migration this
 * build ships applied, and the turn search attributes registered on the namespace. The API and the
 * worker stay up without them (readiness keeps traffic away; a restart loop would only delay the
 * recovery once `convengine migrate` or `setup-temporal` has run) and report which one is missing.
 */
export type PrerequisiteProblem =
  | 'DATABASE_UNREACHABLE'
  | 'DATABASE_BUSY'
  | 'DATABASE_NOT_MIGRATED'
  | 'TEMPORAL_UNREACHABLE'
  | 'TEMPORAL_NAMESPACE_MISSING'
  | 'SEARCH_ATTRIBUTES_MISSING'
  | 'CONFIG_EMPTY'
  | 'DEPLOYMENT_MISMATCH';

export interface PrerequisiteStatus {
  /** `ok`, or the /readyz reason for that dependency. */
  database: string;
  temporal: string;
  /** The SQL tools' login, when the process runs them (the worker): `ok` or the /readyz reason. */
  tools?: string;
  /** The database's deployment binding, when the process checks it (targets.deployment): `ok` or the reason. */
  deployment?: string;
  /** The first problem, for a refused request; null when both are ok. */
  problem: PrerequisiteProblem | null;
  /**
   * What an operator must know but that stops no turn, by subject (`database`, `config`): readiness reports it
   * beside its checks and stays ready.
   */
  warnings: Partial<Record<'database' | 'config' | 'search', string>>;
}

export const NOT_MIGRATED = 'not migrated: run convengine migrate';
export const SEARCH_ATTRIBUTES_MISSING = 'search attributes missing: run convengine setup-temporal';
export const NAMESPACE_MISSING = 'namespace missing: run convengine setup-temporal';
export { DEPLOYMENT_MISMATCH };

/** What the log and a worker that cannot start say of a namespace that does not exist. */
export function namespaceMissing(namespace: string): string {
  return `namespace ${namespace} does not exist: run \`convengine setup-temporal\``;
}

/** What a refused turn says, per problem (the API's 503). */
export const PREREQUISITE_MESSAGES: Record<PrerequisiteProblem, string> = {
  DATABASE_UNREACHABLE: 'The database is unreachable; retry later.',
  DATABASE_BUSY: 'The database is busy: no connection to it was free in time; retry later.',
  DATABASE_NOT_MIGRATED: 'The database lacks migrations this build needs: an operator must run `convengine migrate`.',
  TEMPORAL_UNREACHABLE: 'The Temporal server is unreachable; retry later.',
  TEMPORAL_NAMESPACE_MISSING:
    'The Temporal namespace does not exist: an operator must run `convengine setup-temporal`.',
  SEARCH_ATTRIBUTES_MISSING:
    'The Temporal namespace lacks the turn search attributes: an operator must run `convengine setup-temporal`.',
  CONFIG_EMPTY:
    'No config is loaded (no intent, no response): an operator must run `convengine seed` or `convengine config apply`.',
  DEPLOYMENT_MISMATCH:
    "The database belongs to another deployment (Temporal namespace or task queue): an operator must fix this process's " +
    'settings or rebind the database.',
};

/** How long one check answers readiness probes and turn requests: a fix is seen within this. */
export const PREREQUISITE_CACHE_MS = 5_000;

/** The process's config store, as far as readiness reads it (db/config/store.ts). */
export interface ServedConfigSource {
  current(): Promise<ConfigSnapshot>;
  rejectedViolations(): readonly ConfigViolation[];
}

export interface PrerequisiteTargets {
  db: Database;
  /** The config store whose refusal of the tables readiness reports; loaded at start, so a refusal is logged then. */
  config?: ServedConfigSource;
  temporal: Pick<Connection, 'operatorService' | 'withDeadline'>;
  namespace: string;
  /** The login SQL tools use, checked by a process that runs them (the worker); no check without. */
  tools?: ToolsLogin;
  /**
   * This process's deployment: the database is bound to it when unbound, and a binding to another one is a problem
   * (db/deployment.ts). No check without (the tests' workers, many task queues on one database).
   */
  deployment?: Deployment;
  /** Whether the process serves the console's search (the API): its missing trigram indexes are then a warning. */
  consoleSearch?: boolean;
  logger: Logger;
  cacheMs?: number;
}

export interface PrerequisiteMonitor {
  /** The last check's answer, re-checked when older than the cache period. */
  status(): Promise<PrerequisiteStatus>;
  /**
   * The database's binding to another deployment than this process's, or null (its own, unbound, not migrated, not
   * answering, or no deployment to check): the check status() runs, cached alike, without waiting for the others.
   */
  deploymentMismatch(): Promise<DeploymentMismatchError | null>;
}

/** One dependency's answer; `log` says what is wrong and the fix, once per change (not once per probe). */
interface CheckOutcome {
  reason: string;
  problem: PrerequisiteProblem | null;
  /** Reported beside a ready check, logged at warn. */
  warning?: string;
  log?: { fields: object; message: string };
}

const OK: CheckOutcome = { reason: 'ok', problem: null };

// A request for a turn and a readiness probe wait for these checks: each answers within CHECK_DEADLINE_MS.
async function checkDatabase(db: Database, files: MigrationFile[]): Promise<CheckOutcome> {
  try {
    const state = await databaseCheck(schemaState(db.$client, files), db.$client);
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
 * server to check): a pool too small for the load, or a server too slow for it.
 */
export function busyLog(pool: PoolStats): { fields: { pool: PoolStats }; message: string } {
  const message =
    `the database is busy: it answers, but no pooled connection was free in time (${pool.total} of ${pool.max} ` +
    `open, ${pool.idle} idle, ${pool.waiting} waiting): the load outgrows the pool or the server`;
  return { fields: { pool }, message };
}

async function checkTemporal(targets: PrerequisiteTargets): Promise<CheckOutcome> {
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
async function configCheck(config: ServedConfigSource | undefined): Promise<CheckOutcome> {
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
async function searchIndexCheck(db: Database): Promise<CheckOutcome> {
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
async function toolsCheck(login: ToolsLogin | undefined): Promise<CheckOutcome | undefined> {
  return login === undefined ? undefined : { problem: null, ...(await checkToolsLogin(login)) };
}

/** Logs a dependency's problem when it appears or changes, and its recovery. */
function reportChange(logger: Logger, dependency: string, before: CheckOutcome | undefined, now: CheckOutcome): void {
  if (before?.reason === now.reason && before.warning === now.warning) return;
  if (now.log && now.problem === null && now.warning !== undefined)
    logger.warn({ dependency, ...now.log.fields }, now.log.message);
  else if (now.log) logger.error({ dependency, ...now.log.fields }, now.log.message);
  else if (before) logger.info({ dependency }, `${dependency}: ok`);
}

/** One round of checks: the optional ones (tools, deployment) only for a process that asked for them. */
interface CheckRound {
  database: CheckOutcome;
  temporal: CheckOutcome;
  config: CheckOutcome;
  search?: CheckOutcome;
  tools?: CheckOutcome;
  deployment?: CheckOutcome;
}

/** Logs what changed since the previous round. */
function reportRound(logger: Logger, previous: CheckRound | undefined, now: CheckRound): void {
  reportChange(logger, 'database', previous?.database, now.database);
  reportChange(logger, 'temporal', previous?.temporal, now.temporal);
  if (now.tools) reportChange(logger, 'tools', previous?.tools, now.tools);
  if (now.deployment) reportChange(logger, 'deployment', previous?.deployment, now.deployment);
  if (now.search) reportChange(logger, 'search', previous?.search, now.search);
  // Only an empty config's coming and going: the store logs a refused one itself (logConfigRejections).
  if (now.config.problem !== null || previous?.config.problem)
    reportChange(logger, 'config', previous?.config, now.config);
}

function statusOf({ database, temporal, config, search, tools, deployment }: CheckRound): PrerequisiteStatus {
  const warnings = {
    ...(database.warning !== undefined ? { database: database.warning } : {}),
    ...(config.warning !== undefined ? { config: config.warning } : {}),
    ...(search?.warning !== undefined ? { search: search.warning } : {}),
  };
  return {
    database: database.reason,
    temporal: temporal.reason,
    ...(tools ? { tools: tools.reason } : {}),
    ...(deployment ? { deployment: deployment.reason } : {}),
    problem: database.problem ?? deployment?.problem ?? temporal.problem ?? config.problem,
    warnings,
  };
}

/** Checks now (logging what is missing and the fix), then at most once per cache period. */
export async function startPrerequisiteMonitor(targets: PrerequisiteTargets): Promise<PrerequisiteMonitor> {
  const files = readMigrations();
  const cacheMs = targets.cacheMs ?? PREREQUISITE_CACHE_MS;
  let previous: CheckRound | undefined;
  const binding = cachedFor(cacheMs, () => deploymentCheck(targets.db, targets.deployment));
  const check = async (): Promise<PrerequisiteStatus> => {
    const [database, temporal, tools, deployment] = await Promise.all([
      checkDatabase(targets.db, files),
      checkTemporal(targets),
      toolsCheck(targets.tools),
      binding(),
    ]);
    // Only on a usable schema: the store reads tables a missing migration may lack.
    const config = database.problem === null ? await configCheck(targets.config) : OK;
    const search = database.problem === null && targets.consoleSearch ? await searchIndexCheck(targets.db) : undefined;
    const round: CheckRound = { database, temporal, config, ...(search ? { search } : {}) };
    if (tools) round.tools = tools;
    if (deployment) round.deployment = deployment;
    reportRound(targets.logger, previous, round);
    previous = round;
    return statusOf(round);
  };
  const status = cachedFor(cacheMs, check);
  await status();
  return { status, deploymentMismatch: async () => (await binding())?.mismatch ?? null };
}

/** A reachable dependency's readiness is its prerequisite's; an unreachable one's stays `unreachable`. */
export function readinessWithPrerequisites(
  reachability: { database: string; temporal: string },
  required: PrerequisiteStatus
): { database: string; temporal: string } {
  return {
    database: reachability.database === 'ok' ? required.database : reachability.database,
    temporal: reachability.temporal === 'ok' ? required.temporal : reachability.temporal,
  };
}
