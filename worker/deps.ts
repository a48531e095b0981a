import { engineConfigStore, engineValidation } from '../activities/runtime/config-validation';
import type { DatabaseConfigStore } from '../db/config/store';
import type { DataConverter } from '@temporalio/common';
import type { Pool } from 'pg';
import type { Env } from '../config/env';
import { systemClock, type ActivityDeps } from '../activities/deps';
import { configuredAuditGate, type AuditGate } from '../activities/runtime/audit-gate';
import { createLlmClientFromEnv } from '../activities/llm/from-env';
import { createToolDeps } from '../activities/tools/deps';
import { loadSqlParser } from '../activities/tools/sql/parser';
import { createTaskRegistry, type TaskTable } from '../core/tasks/registry';
import { engineDataConverter } from '../db/data-converter';
import type { LlmClient } from '../core/llm';
import { cancelStatementsOn } from '../db/cancellation';
import type { Database, DbHandle } from '../db/pool';
import { TOOLS_SESSION, workerSession } from '../db/session-settings';
import { createBoundedPool, openBoundedDatabase } from '../observability/query-timeouts';
import { activityCancellation } from '../activities/runtime/activity-context';
import { withoutFailureText } from '../observability/failure-outline';
import { llmCallObserver, tracedLlmClient } from '../observability/llm';
import type { Logger } from '../observability/logger';
import { countDecision, type WorkerMetrics } from '../observability/metrics';
import { toolsLoginOf, type ToolsLogin } from '../db/tools-role';
import { reloadOnConfigChange } from '../db/config/change-listener';

export interface WorkerDepsOptions {
  databaseUrl: string;
  /** Consumer task handlers for SET_TASK rules and pending actions. */
  tasks?: TaskTable;
  /** Environment tool rows may read (`CONVENGINE_TOOL_*`, auth secrets). */
  toolEnv: Readonly<Record<string, string | undefined>>;
  /** LLM calls counted, traced and logged (the worker passes its logger and metrics). */
  observability?: { logger: Logger; metrics: WorkerMetrics };
}

export interface WorkerDeps {
  deps: ActivityDeps;
  /** deps.configStore, with what readiness reads of it (its refusal of the tables). */
  configStore: DatabaseConfigStore;
  /** Large payloads go to ce_payload_claim instead of history (issue #13, item 7). */
  dataConverter: DataConverter;
  /** The login tool SQL uses, which readiness checks. */
  toolsLogin: ToolsLogin;
  close(): Promise<void>;
}

function llmClient(env: Env, db: Database, observability: WorkerDepsOptions['observability']): LlmClient {
  if (!observability) return createLlmClientFromEnv(env, db);
  const observer = llmCallObserver({ ...observability, withoutFailureText: withoutFailureText(env) });
  return tracedLlmClient(createLlmClientFromEnv(env, db, {}, observer));
}

/** The audit gate of a worker: what it drops for the rate limit and the decisions recorded go to its metrics. */
export function workerAuditGate(metrics: WorkerMetrics | undefined): AuditGate {
  if (!metrics) return configuredAuditGate(systemClock);
  return configuredAuditGate(systemClock, {
    rateLimited: () => metrics.auditRateDropped.inc(),
    decisionRecorded: (decision) => countDecision(metrics, decision),
  });
}

/**
 * The worker's engine database, WORKER_DB_POOL_MAX connections: its statements end with the activity they run for
 * (db/cancellation.ts), none waits on a lock longer than WORKER_DB_LOCK_TIMEOUT_MS (a session setting, so a pooler
 * accepts the session), and none waits for an answer longer than WORKER_DB_QUERY_TIMEOUT_MS: a frozen backend's
 * statement fails as an unreachable database (the step's attempt fails retryable, activities/step-runtime.ts), its
 * connection is destroyed, and `logger` is told, naming the `convengine-worker` pool.
 */
export function openWorkerDatabase(
  databaseUrl: string,
  env: Pick<Env, 'WORKER_DB_LOCK_TIMEOUT_MS' | 'WORKER_DB_POOL_MAX' | 'WORKER_DB_QUERY_TIMEOUT_MS'>,
  logger?: Logger
): DbHandle {
  const pool = {
    name: 'convengine-worker',
    max: env.WORKER_DB_POOL_MAX,
    queryTimeoutMs: env.WORKER_DB_QUERY_TIMEOUT_MS,
  };
  const handle = openBoundedDatabase(databaseUrl, pool, logger, workerSession(env.WORKER_DB_LOCK_TIMEOUT_MS));
  cancelStatementsOn(handle.pool, activityCancellation);
  return handle;
}

/**
 * The SQL tools' pool, WORKER_TOOLS_POOL_MAX connections logged in as the tools role (`url`, toolsLoginOf), bounded
 * as the worker's engine pool is, by WORKER_DB_QUERY_TIMEOUT_MS: its session's own statements (BEGIN, the settings,
 * ROLLBACK, DISCARD ALL) by that, a tool's query by its own statement timeout (the tool's config, set per transaction
 * by activities/tools/sql/executor.ts) and that past it (queryTimeoutPast), which one bound for every query would cut
 * short or exceed. Unbounded, a frozen tools backend held its tool call, and its pool slot, until the activity's
 * start-to-close; now the statement fails as a retryable TOOL_TIMEOUT, its connection is destroyed, and `logger` is
 * told, naming the `convengine-tools` pool.
 */
export function openToolsPool(
  url: string,
  env: Pick<Env, 'WORKER_TOOLS_POOL_MAX' | 'WORKER_DB_QUERY_TIMEOUT_MS'>,
  logger?: Logger
): Pool {
  const pool = {
    name: 'convengine-tools',
    max: env.WORKER_TOOLS_POOL_MAX,
    queryTimeoutMs: env.WORKER_DB_QUERY_TIMEOUT_MS,
  };
  return createBoundedPool(url, pool, logger, TOOLS_SESSION);
}

/**
 * Activity dependencies built from configuration, for a worker (cli/commands/worker.ts, cli/stack) and the bench's
 * in-process side: nothing here reads the environment itself. Tool SQL gets its own pool, logged in as the tools
 * role (D20): TOOLS_DATABASE_URL when set, else the engine's server and database with the role's derived password
 * (db/tools-role.ts). The engine pool's statements end with the activity they run for (db/cancellation.ts): a stopping
 * worker's step waiting on a row lock is cancelled at its grace's end, none waits longer than
 * WORKER_DB_LOCK_TIMEOUT_MS, and none waits on a frozen backend longer than WORKER_DB_QUERY_TIMEOUT_MS.
 */
export async function buildWorkerDeps(env: Env, options: WorkerDepsOptions): Promise<WorkerDeps> {
  const sqlParser = await loadSqlParser();
  const logger = options.observability?.logger;
  const handle = openWorkerDatabase(options.databaseUrl, env, logger);
  const toolsLogin = toolsLoginOf(env.TOOLS_DATABASE_URL, options.databaseUrl);
  const toolsPool = openToolsPool(toolsLogin.url, env, logger);
  const tools = createToolDeps({ sqlPool: toolsPool, sqlParser, env: options.toolEnv });
  const configStore = engineConfigStore(handle.db, engineValidation(sqlParser), logger);
  const configChanges = reloadOnConfigChange(configStore, handle.pool, logger ? { logger } : {});
  const deps: ActivityDeps = {
    db: handle.db,
    configStore,
    llm: llmClient(env, handle.db, options.observability),
    clock: systemClock,
    tasks: createTaskRegistry(options.tasks ?? {}),
    tools,
    audit: workerAuditGate(options.observability?.metrics),
  };
  return {
    deps,
    configStore,
    dataConverter: engineDataConverter(env, handle.db),
    toolsLogin,
    async close() {
      await configChanges.close();
      await toolsPool.end();
      await handle.close();
    },
  };
}
