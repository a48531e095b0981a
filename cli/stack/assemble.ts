import type { NativeConnection } from '@temporalio/worker';
import { startApiServer, type ApiServer } from '../../api/server';
import type { Env, GrpcCompression } from '../../config/env';
import type { TemporalConnectionSettings } from '../../config/temporal-connection';
import { deploymentOf } from '../../db/deployment';
import type { Logger } from '../../observability/logger';
import { runnableWorkflowSource } from '../../worker/bundle-cache';
import { bindWorkerListeners, type WorkerProbe } from '../../worker/listeners';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { connectWorker } from '../../worker/worker';
import { stopServers, type Part, type RunningStack, type StackOptions, type StackServers } from './types';
import { llmPart, toolsPart } from './parts';
import { prepareDatabase } from './prepare-database';

/**
 * The rest of the stack, once its servers are on their way: the database migrated and seeded, the demo
 * LLM and tool server, then the worker and the API side by side. Every part started is stopped again
 * when a later one fails.
 */
export async function assembleStack(
  options: StackOptions & { logger: Logger },
  servers: StackServers
): Promise<RunningStack> {
  const { logger } = options;
  const parts = new StartedParts();
  const probe = parts.keep(await listenersPart(options, servers));
  try {
    // Webpack (on a cold bundle cache) runs while the database is prepared and Temporal comes up.
    const warming = runnableWorkflowSource(options.env);
    warming.catch(() => undefined);
    const [databaseUrl, temporal] = await parts.keepBoth(preparedDatabase(servers.database, options), servers.temporal);
    const llmUrl = parts.keep(await llmPart(options.env, databaseUrl));
    const toolEnv = parts.keep(await toolsPart(options.env));
    const env: Env = llmUrl ? { ...options.env, ANTHROPIC_BASE_URL: llmUrl } : options.env;
    // One connection for the worker and the API's client, so turns start eagerly (startApiServer says why).
    const connection = parts.keep(await connectionPart(temporal.connection, env.TEMPORAL_GRPC_COMPRESSION));
    // The API does not need the worker to listen: both come up at once. Its /readyz covers the worker's own pool.
    const starting = workerPart({
      env,
      databaseUrl,
      temporal: temporal.connection,
      connection,
      toolEnv,
      logger,
      probe,
    });
    const workerDatabase = workerDatabaseReadiness(starting);
    const [, api] = await parts.keepBoth(
      starting,
      apiPart({
        workerDatabase,
        env,
        databaseUrl,
        temporal: temporal.connection,
        workerConnection: connection,
        port: options.apiPort,
        logger,
        uiUrl: temporal.uiUrl,
      })
    );
    return {
      apiUrl: api.url,
      temporalAddress: temporal.address,
      temporal,
      databaseUrl,
      embedded: parts.embedded(),
      stop: () => parts.stopAll(),
      hurry: api.hurry,
      broken: parts.firstEnded(),
    };
  } catch (err) {
    await parts.stopAll();
    throw err;
  }
}

/**
 * No SDK signal handlers: on SIGINT they would stop the worker at once, and the turns the API still waits on
 * could then never finish. `convengine start` stops the parts itself, the API first. Installed before anything
 * else: the bundle warming would otherwise create the SDK's default runtime.
 */
/** The parts started so far, in start order: stopped last started first, and watched for one ending on its own. */
class StartedParts {
  private readonly parts: Part<unknown>[] = [];
  private stopping = false;

  /** Takes a started part to stop with the rest, and gives what it gives the others. */
  keep<T>(part: Part<T>): T {
    this.parts.push(part as Part<unknown>);
    return part.value;
  }

  /**
   * Two parts started side by side: whichever started is kept (so stopped with the rest) before the first
   * failure, the first part's before the second's, is thrown.
   */
  async keepBoth<A, B>(first: Promise<Part<A>>, second: Promise<Part<B>>): Promise<[A, B]> {
    const [a, b] = await Promise.allSettled([first, second]);
    for (const part of [a, b]) if (part.status === 'fulfilled') this.parts.push(part.value as Part<unknown>);
    if (a.status === 'rejected') throw a.reason;
    if (b.status === 'rejected') throw b.reason;
    return [a.value.value, b.value.value];
  }

  /** The descriptions of the embedded parts, for the start banner. */
  embedded(): string[] {
    return this.parts.map((p) => p.embedded).filter((e): e is string => e !== null);
  }

  async stopAll(): Promise<void> {
    this.stopping = true;
    for (const part of this.parts.reverse()) await part.stop().catch(() => undefined);
  }

  firstEnded(): Promise<string> {
    return firstEnded(this.parts, () => this.stopping);
  }
}

/** What the first part to end on its own said; a part ended by the stack's own stop is not counted. */
function firstEnded(parts: readonly Part<unknown>[], stopping: () => boolean): Promise<string> {
  return new Promise((resolve) => {
    for (const part of parts) void part.ended?.then((how) => stopping() || resolve(how));
  });
}

/** The database part, migrated and loaded with the chosen config; stopped again when that fails. */
async function preparedDatabase(starting: Promise<Part<string>>, options: StackOptions): Promise<Part<string>> {
  const part = await starting;
  try {
    await prepareDatabase(part.value, options.config, {
      toolsDatabaseUrl: options.env.TOOLS_DATABASE_URL,
      lockWaitMs: options.env.MIGRATE_LOCK_WAIT_MS,
      deployment: deploymentOf(options.env),
      log: (line) => options.log(line),
    });
    return part;
  } catch (err) {
    await part.stop().catch(() => undefined);
    throw err;
  }
}

/**
 * The worker's listeners, bound before anything else (worker/listeners.ts): a taken TEMPORAL_SDK_METRICS_ADDRESS or
 * WORKER_METRICS_PORT stops the start, and the servers, which are not parts to stop yet. No SDK signal handlers: on
 * SIGINT they would stop the worker at once, and the turns the API still waits on could then never finish;
 * `convengine start` stops the parts itself, the API first. First of all: the bundle warming would otherwise create
 * the SDK's default runtime. One process, one API port: the worker's own probe server only when asked for.
 */
async function listenersPart(
  options: StackOptions & { logger: Logger },
  servers: StackServers
): Promise<Part<WorkerProbe | null>> {
  const { env, logger } = options;
  const probe = env.WORKER_METRICS_PORT !== undefined ? { host: env.HOST, port: env.WORKER_METRICS_PORT } : undefined;
  const bound = await bindWorkerListeners({ env, logger, probe, shutdownSignals: [] }).catch(async (err: unknown) => {
    await stopServers(servers);
    throw err;
  });
  return { value: bound, embedded: null, stop: async () => bound?.close() };
}

/** Stopped after the worker and the API, which are started after it. */
async function connectionPart(
  temporal: TemporalConnectionSettings,
  compression: GrpcCompression
): Promise<Part<NativeConnection>> {
  const connection = await connectWorker(temporal, compression);
  return { value: connection, embedded: null, stop: () => connection.close() };
}

async function workerPart(part: {
  env: Env;
  databaseUrl: string;
  temporal: TemporalConnectionSettings;
  connection: NativeConnection;
  toolEnv: Record<string, string>;
  logger: Logger;
  probe: WorkerProbe | null;
}): Promise<Part<RunningWorker>> {
  const { env } = part;
  const worker = await runTurnWorker({
    env,
    databaseUrl: part.databaseUrl,
    temporal: part.temporal,
    connection: part.connection,
    // eslint-disable-next-line no-restricted-properties -- the environment HTTP tool rows read, whole (toolEnv)
    toolEnv: { ...process.env, ...part.toolEnv },
    logger: part.logger,
    bindDeployment: true,
    ...(part.probe ? { probe: part.probe } : {}),
  });
  const ended = worker.done.then(
    () => 'the worker stopped',
    (err: unknown) => `the worker failed: ${err instanceof Error ? err.message : String(err)}`
  );
  return { value: worker, embedded: null, stop: () => worker.shutdown(), ended };
}

/** The worker's engine pool's readiness: `starting` until the worker has started, then its `select 1`. */
function workerDatabaseReadiness(starting: Promise<Part<RunningWorker>>): () => Promise<string> {
  let worker: RunningWorker | null = null;
  starting.then(
    (part) => (worker = part.value),
    () => undefined
  );
  return () => worker?.databaseReadiness() ?? Promise.resolve('starting');
}

async function apiPart(part: {
  workerDatabase: () => Promise<string>;
  env: Env;
  databaseUrl: string;
  temporal: TemporalConnectionSettings;
  workerConnection: NativeConnection;
  port: number | undefined;
  logger: Logger;
  uiUrl: string | null;
}): Promise<Part<Pick<ApiServer, 'url' | 'hurry'>>> {
  const api = await startApiServer({
    env: part.env,
    databaseUrl: part.databaseUrl,
    temporal: part.temporal,
    workerConnection: part.workerConnection,
    port: part.port,
    logger: part.logger,
    temporalUiUrl: part.uiUrl ?? undefined,
    workerDatabase: part.workerDatabase,
    bindDeployment: true,
  });
  return { value: { url: api.url, hurry: () => api.hurry() }, embedded: null, stop: () => api.close() };
}
