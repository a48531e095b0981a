import type { Connection } from '@temporalio/client';
import { connectTemporalClient } from '../../config/temporal-client';
import {
  describeTemporal,
  TemporalUnreachableError,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { openDatabase } from '../../db/pool';
import { databaseAddress } from '../../db/address';
import {
  DeploymentMismatchError,
  describeDeployment,
  readDeploymentBinding,
  sameDeployment,
  type Deployment,
} from '../../db/deployment';
import { newerSchemaWarning, notMigratedMessage, schemaState } from '../../db/migrate';
import { toolsRoleCreationRefusal } from '../../db/tools-role';
import { readConfigRows } from '../../db/config/load';
import { configServing } from '../../db/config/stored-fallback';
import { loadEngineValidation } from '../../activities/runtime/config-validation';
import { refusedConfigWarning } from '../../observability/prerequisites';
import { CONFIG_EMPTY_WARNING } from '../../core/config/empty';
import { auditTrailStats } from '../../db/repositories/audit-trail-stats';
import { readAuditPolicy } from '../../core/audit/policy';
import { probeActivityRoundTrip, type RoundTripProbeOptions } from '../../worker/probe';
import { missingTurnSearchAttributes } from '../../config/turn-search-attributes';
import { searchCollationProblem, SEARCH_COLLATION_NAME } from '../../db/search-collation';
import { databaseError } from '../database-failure';
import { errorChain } from '../error-chain';
import { tlsHandshakeProblem } from './tls-handshake';
import { sharedTokenWarning, type ApiTokenSettings } from '../../config/api-tokens';

/**
 * `convengine doctor`'s checks. Each returns a finding; none throws, so one broken part never hides
 * what the others would have said.
 */
export type FindingLevel = 'ok' | 'warn' | 'fail';

export interface Finding {
  check:
    | 'temporal'
    | 'search-attributes'
    | 'turn-patches'
    | 'round-trip'
    | 'database'
    | 'pooling'
    | 'search-collation'
    | 'search-indexes'
    | 'deployment'
    | 'config'
    | 'audit-trail'
    | 'api-tokens'
    | 'api-limits';
  level: FindingLevel;
  message: string;
  /** Measured figure, where the check measures one. */
  msPerActivity?: number;
}

/**
 * Above this, a sequential turn's orchestration alone costs seconds: the usual cause is a server at
 * its defaults (docs/benchmarks.md: ~100 ms per round trip at the default transfer-queue poll rate,
 * ~7 ms with the shipped dynamic config).
 */
export const SLOW_ROUND_TRIP_MS = 30;

export const SLOW_SERVER_ADVICE =
  'set history.transferProcessorMaxPollRPS=1000 and system.enableActivityEagerExecution=true in the ' +
  "server's dynamic config (deploy/temporal/dynamicconfig/convengine-sql.yaml); see the README, " +
  '"Run on your own Temporal", and docs/benchmarks.md';

export async function checkTemporal(temporal: TemporalConnectionSettings, namespace: string): Promise<Finding[]> {
  const where = describeTemporal(temporal);
  let connection: Connection;
  try {
    connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
    await connection.workflowService.describeNamespace({ namespace });
  } catch (err) {
    const handshake = await tlsHandshakeProblem(temporal);
    // The address is already in this message: say only why.
    const reason = errorChain(err instanceof TemporalUnreachableError ? err.cause : err);
    const why = handshake ? `${reason} (${handshake})` : reason;
    return [{ check: 'temporal', level: 'fail', message: `cannot use namespace ${namespace} on ${where}: ${why}` }];
  }
  const findings: Finding[] = [{ check: 'temporal', level: 'ok', message: `namespace ${namespace} on ${where}` }];
  try {
    const missing = Object.keys(await missingTurnSearchAttributes(connection, namespace));
    findings.push(
      missing.length === 0
        ? { check: 'search-attributes', level: 'ok', message: 'every turn search attribute is registered' }
        : {
            check: 'search-attributes',
            level: 'fail',
            message: `missing ${missing.join(', ')}: run \`convengine setup-temporal\``,
          }
    );
  } catch (err) {
    findings.push({ check: 'search-attributes', level: 'fail', message: errorChain(err) });
  } finally {
    await connection.close();
  }
  return findings;
}

export type RoundTripTarget = Pick<
  RoundTripProbeOptions,
  'temporal' | 'namespace' | 'compression' | 'workflowBundle' | 'sealFailureText'
>;

/** Times a chain of empty activities on a private task queue (worker/probe.ts). */
export async function checkRoundTrip(target: RoundTripTarget): Promise<Finding> {
  try {
    const { msPerActivity } = await probeActivityRoundTrip(target);
    const figure = `${msPerActivity.toFixed(1)} ms per activity round trip`;
    if (msPerActivity > SLOW_ROUND_TRIP_MS) {
      return {
        check: 'round-trip',
        level: 'warn',
        msPerActivity,
        message: `${figure} (above ${SLOW_ROUND_TRIP_MS} ms: turns will be slow): ${SLOW_SERVER_ADVICE}`,
      };
    }
    return { check: 'round-trip', level: 'ok', msPerActivity, message: figure };
  } catch (err) {
    return { check: 'round-trip', level: 'fail', message: `the probe workflow did not complete: ${errorChain(err)}` };
  }
}

/**
 * Connects and compares the applied migrations with the ones this build ships. A database that lacks some also says
 * when `migrate` would refuse, as DATABASE_URL's login, to create the SQL tools' role (`toolsDatabaseUrl`'s login).
 */
export async function checkDatabase(databaseUrl: string, toolsDatabaseUrl?: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, {
    max: 1,
    connectionTimeoutMillis: 5_000,
    application_name: 'convengine-doctor',
  });
  try {
    const state = await schemaState(handle.pool);
    if (state.changed.length > 0) {
      return {
        check: 'database',
        level: 'fail',
        message: `migration(s) changed after they were applied (${state.changed.join(', ')}): deploy the build that applied them`,
      };
    }
    const notMigrated = notMigratedMessage(state);
    if (notMigrated !== null) {
      const refusal = await toolsRoleCreationRefusal(handle.pool, toolsDatabaseUrl);
      const message = refusal === null ? notMigrated : `${notMigrated}, which will fail: ${refusal}`;
      return { check: 'database', level: 'fail', message };
    }
    if (state.unknown.length > 0) {
      return { check: 'database', level: 'warn', message: newerSchemaWarning(state.unknown) };
    }
    return { check: 'database', level: 'ok', message: `connected; ${state.appliedCount} migrations applied` };
  } catch (err) {
    return { check: 'database', level: 'fail', message: `cannot read the schema: ${databaseError(handle.pool, err)}` };
  } finally {
    await handle.close();
  }
}

/**
 * Whether the console's text search can run: it folds case with ICU's root collation, which a PostgreSQL built without
 * ICU (or a database in an encoding ICU does not support) lacks, and every search with text then fails. Turns do not
 * use it, so it warns.
 */
export async function checkSearchCollation(databaseUrl: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, {
    max: 1,
    connectionTimeoutMillis: 5_000,
    application_name: 'convengine-doctor',
  });
  try {
    const problem = await searchCollationProblem(handle.db);
    if (problem !== null) return { check: 'search-collation', level: 'warn', message: problem };
    return { check: 'search-collation', level: 'ok', message: `collation "${SEARCH_COLLATION_NAME}" (ICU) is there` };
  } catch (err) {
    const message = `cannot check collation "${SEARCH_COLLATION_NAME}": ${databaseError(handle.pool, err)}`;
    return { check: 'search-collation', level: 'fail', message };
  } finally {
    await handle.close();
  }
}

/**
 * The deployment the database is bound to (db/deployment.ts), against the one checked here: another one fails, as a
 * worker, API or start with these settings would refuse to start. Read only: doctor binds nothing.
 */
export async function checkDeployment(databaseUrl: string, own: Deployment): Promise<Finding> {
  const handle = openDatabase(databaseUrl, {
    max: 1,
    connectionTimeoutMillis: 5_000,
    application_name: 'convengine-doctor',
  });
  try {
    const binding = await readDeploymentBinding(handle.pool);
    if (binding === null) {
      const message =
        'not bound to a deployment yet: the first `convengine worker`, `api` or `start` binds it to its ' +
        `TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE (here ${describeDeployment(own)})`;
      return { check: 'deployment', level: 'ok', message };
    }
    if (!sameDeployment(binding, own)) {
      const address = databaseAddress(handle.pool.options.connectionString);
      return {
        check: 'deployment',
        level: 'fail',
        message: new DeploymentMismatchError(address, binding, own).message,
      };
    }
    const since = binding.boundAt.toISOString();
    return {
      check: 'deployment',
      level: 'ok',
      message: `bound to Temporal ${describeDeployment(binding)} since ${since}`,
    };
  } catch (err) {
    const message = `cannot read the binding: ${databaseError(handle.pool, err)}`;
    return { check: 'deployment', level: 'fail', message };
  } finally {
    await handle.close();
  }
}

/**
 * Whether the tables validate under this build's rules, and if not, what every process serves instead: a stored
 * snapshot (turns go on, on that version: warn) or nothing (every new turn fails CONFIG_INVALID: fail). A config that
 * validates but is empty (nothing loaded: every message is refused CONFIG_EMPTY) fails too.
 */
export async function checkConfig(databaseUrl: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, {
    max: 1,
    connectionTimeoutMillis: 5_000,
    application_name: 'convengine-doctor',
  });
  try {
    const serving = await configServing(handle.db, { validation: await loadEngineValidation() });
    const count = serving.violations.length;
    if (count === 0 && serving.empty) return { check: 'config', level: 'fail', message: CONFIG_EMPTY_WARNING };
    if (count === 0) return { check: 'config', level: 'ok', message: `config ${serving.version} validates` };
    if (serving.fallbackVersion !== null) {
      return {
        check: 'config',
        level: 'warn',
        message: `${refusedConfigWarning(serving.fallbackVersion)} (${count} violation(s))`,
      };
    }
    return {
      check: 'config',
      level: 'fail',
      message: `the current config is refused (${count} violation(s)) and no stored snapshot validates: every new turn fails CONFIG_INVALID; run convengine validate-config`,
    };
  } catch (err) {
    return { check: 'config', level: 'fail', message: `cannot read the config: ${databaseError(handle.pool, err)}` };
  } finally {
    await handle.close();
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How large the audit trail is, how old its oldest idle conversation, and the audit policy the current
 * config sets: what an operator needs to decide on `conversations prune` and a quieter policy. Warns only
 * when the policy rows do not parse (the workers would refuse the config).
 */
export async function checkAuditTrail(databaseUrl: string): Promise<Finding> {
  const handle = openDatabase(databaseUrl, {
    max: 1,
    connectionTimeoutMillis: 5_000,
    application_name: 'convengine-doctor',
  });
  try {
    const stats = await auditTrailStats(handle.db);
    const configs = (await readConfigRows(handle.db)).configs;
    const policyRows = configs.filter((r) => r.enabled && r.configType.toUpperCase() === 'AUDITSERVICE');
    const mib = (stats.bytes / (1024 * 1024)).toFixed(1);
    const rows = stats.rows === null ? 'rows not yet estimated' : `~${stats.rows.toLocaleString('en-US')} rows`;
    const idle =
      stats.oldestIdleMs === null
        ? 'no conversation'
        : `oldest conversation idle ${(stats.oldestIdleMs / DAY_MS).toFixed(1)} d`;
    let policy: string;
    try {
      const p = readAuditPolicy(configs);
      policy = p.enabled ? `LEVEL=${p.level}${p.persistMeta ? '' : ', PERSIST_META=false'}` : 'ENABLED=false';
      const filters = policyRows.filter((r) => /CLUDE_|RATE_LIMIT_ENABLED/i.test(r.configKey)).length;
      if (filters > 0) policy += `, ${filters} filter row(s)`;
    } catch (err) {
      return { check: 'audit-trail', level: 'warn', message: `the audit policy does not parse: ${errorChain(err)}` };
    }
    return {
      check: 'audit-trail',
      level: 'ok',
      message:
        `ce_audit ${mib} MiB, ${rows}; ${idle}; audit policy ${policy}. ` +
        'Idle conversations go with `convengine conversations prune --older-than <age>` (docs/runbook.md section 8)',
    };
  } catch (err) {
    return {
      check: 'audit-trail',
      level: 'fail',
      message: `cannot read the audit trail: ${databaseError(handle.pool, err)}`,
    };
  } finally {
    await handle.close();
  }
}

/**
 * The API's tokens, when it has any: a warning when API_TOKEN is the only one, since whoever holds it (a gateway
 * serving end users) then reaches the operator routes too. Null without API_TOKEN (the API then answers loopback only).
 */
export function checkApiTokens(env: ApiTokenSettings): Finding | null {
  if (env.API_TOKEN === undefined) return null;
  const warning = sharedTokenWarning(env);
  if (warning) return { check: 'api-tokens', level: 'warn', message: warning };
  const message = "API_TOKEN reaches the gateway's routes only; OPERATOR_API_TOKEN every route";
  return { check: 'api-tokens', level: 'ok', message };
}
