import type { Connection } from '@temporalio/client';
import type { Database } from '../db/pool';
import { readMigrations } from '../db/migrate';
import type { ToolsLogin } from '../db/tools-role';
import type { Deployment, DeploymentMismatchError } from '../db/deployment';
import { deploymentCheck } from './deployment-check';
import { cachedFor } from './dependency-checks';
import type { Logger } from './logger';
import {
  checkDatabase,
  checkTemporal,
  configCheck,
  searchIndexCheck,
  toolsCheck,
  type ServedConfigSource,
} from './prerequisite-checks';
import { OK, type CheckOutcome, type PrerequisiteStatus } from './prerequisite-problems';

/** How long one check answers readiness probes and turn requests: a fix is seen within this. */
export const PREREQUISITE_CACHE_MS = 5_000;

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
