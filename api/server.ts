import { engineConfigStore, loadEngineValidation } from '../activities/runtime/config-validation';
import { reloadOnConfigChange } from '../db/config/change-listener';
import { Client, type ConnectionLike } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { whatifConversation } from '../activities/whatif/replay';
import type { Env } from '../config/env';
import { apiIntakeLimits, unreachableMessageLimitWarning, type ApiIntakeLimits } from '../config/api-limits';
import { connectTemporalClient } from '../config/temporal-client';
import { withDefaultCallDeadline } from '../config/temporal-call-deadline';
import type { TemporalConnectionSettings } from '../config/temporal-connection';
import { engineDataConverter } from '../db/data-converter';
import type { DatabaseConfigStore } from '../db/config/store';
import { bindOwnDeployment, deploymentOf } from '../db/deployment';
import type { Database, DbHandle } from '../db/pool';
import { silentLogger, type Logger } from '../observability/logger';
import { withoutFailureText } from '../observability/failure-outline';
import {
  PREREQUISITE_CACHE_MS,
  startPrerequisiteMonitor,
  type PrerequisiteMonitor,
} from '../observability/prerequisites';
import { cachedFor, readinessCacheMs, temporalCheck, temporalChecksEnded } from '../observability/dependency-checks';
import { createApiMetrics, type ApiMetrics } from '../observability/metrics';
import { metricsText } from '../observability/probe-server';
import { openBoundedDatabase } from '../observability/query-timeouts';
import { tracingClientInterceptors } from '../observability/tracing';
import { sampleTemporalClock } from '../observability/turn-pollers';
import { buildApi, type ApiOptions } from './app';
import { exposedWithoutTokenWarning } from './host-check';
import { sharedTokenWarning } from '../config/api-tokens';
import { consolePorts } from './console/wiring';
import { configReplyTexts } from './reply-texts';
import { conversationQueries } from './db-queries';
import type { ApiPorts } from './ports';
import { apiReadiness } from './readiness';
import { eraseConversation } from './turns/erase';
import { TemporalTurnGateway } from './turns/gateway';
import { temporalTurnEnds } from './turns/turn-ended';
import { temporalHeldTools } from './turns/held-tools';
import { awaitingApprovalQuery, temporalApprovalQueue } from './turns/approval-queue';

export interface ApiServer {
  app: FastifyInstance;
  url: string;
  /**
   * For `delayMs` first (default 0; API_SHUTDOWN_DELAY_MS on a SIGTERM to `convengine api`), /readyz answers 503 while
   * every request is served as before, new connections included: load balancers that still send here (a Kubernetes
   * endpoint's removal takes seconds to reach them) stop meanwhile. Then stops taking requests (a request before the
   * listener closes, or on a connection still answering one, gets 503; then a new connection is refused and an idle
   * one closed) and lets the turns callers wait on finish, for at most `drainMs` (default API_DRAIN_MS); then each
   * waiting caller gets 202 RUNNING and the turn goes on in Temporal. A worker in the same process must keep running
   * until this resolves.
   */
  close(options?: { drainMs?: number; delayMs?: number }): Promise<void>;
  /** Ends the delay and the drain of a close now (a second Ctrl-C). */
  hurry(): void;
}

/** How long a stopping API lets running turns answer their callers (a turn takes well under a second). */
export const API_DRAIN_MS = 10_000;

export interface ApiServerOptions {
  env: Env;
  databaseUrl: string;
  temporal: TemporalConnectionSettings;
  host?: string;
  port?: number;
  /** The process logger; without one, Fastify's own at LOG_LEVEL. */
  logger?: Logger;
  /** The Temporal Web UI the console links to when TEMPORAL_UI_URL is unset (the one `convengine start` runs). */
  temporalUiUrl?: string;
  /**
   * The NativeConnection of a turn worker in this process (`convengine start`), which its owner
   * closes: turns then start eagerly, their first workflow task handed to that worker with the
   * start. Default: a connection of the API's own to `temporal`, and no eager start.
   */
  workerConnection?: ConnectionLike;
  /** How long a migration or search-attribute check answers (default PREREQUISITE_CACHE_MS). */
  prerequisiteCacheMs?: number;
  /** The readiness of a turn worker's engine pool in this process (`convengine start`), which /readyz reports too. */
  workerDatabase?: () => Promise<string>;
  /**
   * Bind the database to this API's deployment (TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE) when it is unbound, fail
   * the start with DeploymentMismatchError when it is bound to another, and check the binding in /readyz and before
   * each turn (db/deployment.ts). The CLI's APIs set it; tests that run many task queues on one database leave it out.
   */
  bindDeployment?: boolean;
}

/** What the API holds open and reads: its database, its Temporal connection and client, the config store. */
interface ApiWiring {
  env: Env;
  db: Database;
  connection: ConnectionLike;
  client: Client;
  store: DatabaseConfigStore;
  /** How long one readiness answer serves /readyz (readinessCacheMs). */
  readinessCacheMs: number;
  workerDatabase?: () => Promise<string>;
}

/** Wires the real ports (Temporal client, PostgreSQL, config store) and listens. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { env } = options;
  const handle = openApiDatabase(options.databaseUrl, env, options.logger);
  const deployment = options.bindDeployment ? deploymentOf(env) : undefined;
  // Before Temporal: an API on another deployment's database must not start a turn.
  if (deployment) await bindOwnDeployment(handle.pool, deployment).catch(closingHandle(handle));
  const shared = options.workerConnection;
  const connection = shared ?? (await connectTemporalClient(options.temporal));
  const stopped = new AbortController();
  const bounded = withDefaultCallDeadline(connection, env.TEMPORAL_CALL_TIMEOUT_MS, stopped.signal);
  const client = temporalClient(handle.db, bounded, env);
  // The API's refresh and validate answer what the worker's store decides.
  const store = engineConfigStore(handle.db, await loadEngineValidation(), options.logger);
  const configChanges = reloadOnConfigChange(store, handle.pool, options.logger ? { logger: options.logger } : {});
  const cacheMs = readinessCacheMs(options.prerequisiteCacheMs);
  const wiring: ApiWiring = { env, db: handle.db, connection, client, store, readinessCacheMs: cacheMs };
  if (options.workerDatabase) wiring.workerDatabase = options.workerDatabase;
  const prerequisites = await startPrerequisiteMonitor({
    db: handle.db,
    config: store,
    temporal: connection,
    namespace: env.TEMPORAL_NAMESPACE,
    ...(deployment ? { deployment } : {}),
    consoleSearch: true,
    logger: options.logger ?? silentLogger(),
    ...(options.prerequisiteCacheMs !== undefined ? { cacheMs: options.prerequisiteCacheMs } : {}),
  });
  const metrics = createApiMetrics(pendingApprovalsCount(client, connection, env.TEMPORAL_TASK_QUEUE), {
    turnReplyTimeoutMs: env.TURN_REPLY_TIMEOUT_MS,
  });
  const gateway = new TemporalTurnGateway({
    client,
    db: handle.db,
    taskQueue: env.TEMPORAL_TASK_QUEUE,
    eagerStart: shared !== undefined,
    replyTimeoutMs: env.TURN_REPLY_TIMEOUT_MS,
    decisionTimeoutMs: env.OPERATOR_DECISION_TIMEOUT_MS,
  });
  const ports = apiPorts(wiring, gateway, prerequisites);
  // Temporal's clock judges the workers' polls: learn it now, not at the first probe or decision (turn-pollers.ts).
  sampleTemporalClock(
    connection,
    { namespace: env.TEMPORAL_NAMESPACE, taskQueue: env.TEMPORAL_TASK_QUEUE },
    stopped.signal
  );
  const host = options.host ?? env.HOST;
  const stop: StopState = { leaving: false };
  const limits = apiIntakeLimits(env, options.workerConnection !== undefined);
  const app = buildApi({ ...apiOptions(wiring, options, ports, metrics, limits), host, leaving: () => stop.leaving });
  const url = await app.listen({ host, port: options.port ?? env.PORT });
  const warnings = [
    exposedWithoutTokenWarning(host, env.API_TOKEN),
    sharedTokenWarning(env),
    unreachableMessageLimitWarning(env, limits),
  ];
  for (const warning of warnings) {
    if (warning) options.logger?.warn(warning);
  }
  return drainingServer({ app, url, gateway, stop }, async () => {
    // Every caller was answered: the turn waits still in flight end here, before the connection they are sent on.
    stopped.abort();
    if (!shared) {
      await temporalChecksEnded(connection);
      await connection.close();
    }
    await configChanges.close();
    await handle.close();
  });
}

/** The API's database: a pool of API_DB_POOL_MAX connections, each statement bounded by API_DB_QUERY_TIMEOUT_MS. */
export function openApiDatabase(
  databaseUrl: string,
  env: Pick<Env, 'API_DB_POOL_MAX' | 'API_DB_QUERY_TIMEOUT_MS'>,
  logger?: Logger
): DbHandle {
  const pool = { name: 'convengine-api', max: env.API_DB_POOL_MAX, queryTimeoutMs: env.API_DB_QUERY_TIMEOUT_MS };
  return openBoundedDatabase(databaseUrl, pool, logger);
}

/** A failed start's handler: closes the database handle, then rethrows. */
function closingHandle(handle: DbHandle): (err: unknown) => Promise<never> {
  return async (err) => {
    await handle.close();
    throw err;
  };
}

/**
 * The API's Temporal client: payloads are encrypted when PAYLOAD_ENCRYPTION_KEYS is set and those over the claim-check
 * threshold go to the database (engineDataConverter), calls are traced, and each is bounded by TEMPORAL_CALL_TIMEOUT_MS
 * and ends with the API (withDefaultCallDeadline).
 */
function temporalClient(db: Database, connection: ConnectionLike, env: Env): Client {
  return new Client({
    connection,
    namespace: env.TEMPORAL_NAMESPACE,
    dataConverter: engineDataConverter(env, db),
    interceptors: tracingClientInterceptors(),
  });
}

/** The pending-approvals gauge's reader: the turns of this deployment's task queue that await an approval. */
function pendingApprovalsCount(client: Client, connection: ConnectionLike, taskQueue: string): () => Promise<number> {
  // A scrape waits for this count: within the check deadline, and once per cache period however many scrapers ask.
  const countPending = () => client.workflow.count(awaitingApprovalQuery(taskQueue));
  return cachedFor(PREREQUISITE_CACHE_MS, async () => (await temporalCheck(connection, countPending)).count);
}

/** The routes' ports on the real Temporal and PostgreSQL. */
function apiPorts(wiring: ApiWiring, turns: ApiPorts['turns'], prerequisites: PrerequisiteMonitor): ApiPorts {
  const { env, db, connection, client, store, workerDatabase } = wiring;
  const taskQueue = env.TEMPORAL_TASK_QUEUE;
  const conversations = conversationQueries(db, temporalTurnEnds(client.workflow, taskQueue));
  return {
    turns,
    conversations,
    replyTexts: configReplyTexts({ snapshot: async () => store.current(), conversations }),
    config: { refresh: async () => store.refresh() },
    readiness: apiReadiness(
      { db, connection, env, prerequisites, ...(workerDatabase ? { workerDatabase } : {}) },
      wiring.readinessCacheMs
    ),
    whatif: {
      conversation: (id, version, { maxTurns }) =>
        whatifConversation({ db }, { conversationId: id, config: { version }, maxTurns }),
    },
    heldTools: temporalHeldTools(client, { taskQueue, decisionTimeoutMs: env.OPERATOR_DECISION_TIMEOUT_MS }),
    approvals: temporalApprovalQueue(client, taskQueue),
    eraseConversation: (request) => eraseConversation(db, { workflow: client.workflow, taskQueue }, request),
  };
}

/** buildApi's options from the environment, read once, and the server's own options. */
function apiOptions(
  wiring: ApiWiring,
  options: ApiServerOptions,
  ports: ApiPorts,
  metrics: ApiMetrics,
  { messageMaxConcurrent, maxConnections }: ApiIntakeLimits
): ApiOptions {
  const { env } = wiring;
  return {
    ports,
    apiToken: env.API_TOKEN,
    operatorToken: env.OPERATOR_API_TOKEN,
    messageMaxBytes: env.MESSAGE_MAX_BYTES,
    inputParamsMaxBytes: env.INPUT_PARAMS_MAX_BYTES,
    logLevel: env.LOG_LEVEL,
    logger: options.logger,
    metrics: () => metricsText(metrics.registry),
    turnDuration: metrics.turnDuration,
    limitMetrics: { inUse: metrics.limitInUse, refused: metrics.limitRefused },
    whatifLimits: { concurrency: env.WHATIF_CONCURRENCY, maxTurns: env.WHATIF_MAX_TURNS },
    messageMaxConcurrent,
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    streamMaxConnections: env.STREAM_MAX_CONNECTIONS,
    withoutFailureText: withoutFailureText(env),
    console: consolePorts(wiring.db, wiring.client, {
      taskQueue: env.TEMPORAL_TASK_QUEUE,
      temporalUiUrl: options.temporalUiUrl ?? env.TEMPORAL_UI_URL,
    }),
  };
}

/** Whether a close has begun: /readyz answers 503 from then on (ApiOptions.leaving). */
interface StopState {
  leaving: boolean;
}

/** What a close stops: the listening API, the turns its callers wait on, and its stop state. */
interface Listening {
  app: FastifyInstance;
  url: string;
  gateway: TemporalTurnGateway;
  stop: StopState;
}

/** The listening API: a close that delays and drains (see ApiServer), then `release`s what it holds. */
function drainingServer({ app, url, gateway, stop }: Listening, release: () => Promise<void>): ApiServer {
  let hurried = false;
  let endWait = (): void => undefined;
  /** `ms`, or less when `done` settles first; nothing once hurried. */
  const wait = (ms: number, done?: Promise<unknown>): Promise<void> =>
    hurried
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms);
          endWait = () => {
            clearTimeout(timer);
            resolve();
          };
          done?.then(endWait, endWait);
        });
  return {
    app,
    url,
    async close({ drainMs = API_DRAIN_MS, delayMs = 0 } = {}) {
      stop.leaving = true;
      await wait(delayMs);
      const closing = app.close();
      // Callers still waiting on a turn past the drain get 202 RUNNING, and the close then ends at once.
      await wait(drainMs, closing);
      gateway.release();
      await closing;
      await release();
    },
    hurry() {
      hurried = true;
      gateway.release();
      endWait();
    },
  };
}
