import type { NativeConnection } from '@temporalio/worker';
import { startApiServer, type ApiServer } from '../../api/server';
import type { Env, GrpcCompression } from '../../config/env';
import type { TemporalConnectionSettings } from '../../config/temporal-connection';
import type { Logger } from '../../observability/logger';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { runnableWorkflowSource } from '../../worker/bundle-cache';
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
  try {
    // No SDK signal handlers: on SIGINT they would stop the worker at once, and the turns the API still waits on
    // could then never finish. `convengine start` stops the parts itself, the API first. First of all: the bundle
    // warming below would otherwise create the SDK's default runtime.
    installTemporalRuntime({
      logger,
      sdkMetricsAddress: options.env.TEMPORAL_SDK_METRICS_ADDRESS,
      shutdownSignals: [],
    });
  } catch (err) {
    // A taken TEMPORAL_SDK_METRICS_ADDRESS (SdkMetricsAddressError): the servers are not parts to stop yet.
    await stopServers(servers);
    throw err;
  }
  const stops: Part<unknown>[] = [];
  const keep = <T>(part: Part<T>): T => (stops.push(part as Part<unknown>), part.value);
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    for (const part of stops.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    // Webpack (on a cold bundle cache) runs while the database is prepared and Temporal comes up.
    const warming = runnableWorkflowSource(options.env);
    warming.catch(() => undefined);
    const [database, temporalServer] = await Promise.allSettled([
      preparedDatabase(servers.database, options),
      servers.temporal,
    ]);
    for (const part of [database, temporalServer]) if (part.status === 'fulfilled') stops.push(part.value);
    if (database.status === 'rejected') throw database.reason;
    if (temporalServer.status === 'rejected') throw temporalServer.reason;
    const databaseUrl = database.value.value;
    const temporal = temporalServer.value.value;
    const llmUrl = keep(await llmPart(options.env, databaseUrl));
    const toolEnv = keep(await toolsPart(options.env, options.log));
    const env: Env = llmUrl ? { ...options.env, ANTHROPIC_BASE_URL: llmUrl } : options.env;
    // One connection for the worker and the API's client, so turns start eagerly (startApiServer says why).
    const connection = keep(await connectionPart(temporal.connection, env.TEMPORAL_GRPC_COMPRESSION));
    // The API does not need the worker to listen: both come up at once.
    const [worker, api] = await Promise.allSettled([
      workerPart({ env, databaseUrl, temporal: temporal.connection, connection, toolEnv, logger }),
      apiPart({
        env,
        databaseUrl,
        temporal: temporal.connection,
        workerConnection: connection,
        port: options.apiPort,
        logger,
        uiUrl: temporal.uiUrl,
      }),
    ]);
    for (const part of [worker, api]) if (part.status === 'fulfilled') stops.push(part.value as Part<unknown>);
    if (worker.status === 'rejected') throw worker.reason;
    if (api.status === 'rejected') throw api.reason;
    const embedded = stops.map((p) => p.embedded).filter((e): e is string => e !== null);
    return {
      apiUrl: api.value.value.url,
      temporalAddress: temporal.address,
      temporal,
      databaseUrl,
      embedded,
      stop: stopAll,
      hurry: api.value.value.hurry,
      broken: firstEnded(stops, () => stopping),
    };
  } catch (err) {
    await stopAll();
    throw err;
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
      toolsDatabaseUrlSet: options.env.TOOLS_DATABASE_URL !== undefined,
      log: (line) => options.log(line),
    });
    return part;
  } catch (err) {
    await part.stop().catch(() => undefined);
    throw err;
  }
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
    // One process, one API port: the worker's own probe server only when asked for.
    ...(env.WORKER_METRICS_PORT !== undefined ? { probe: { host: env.HOST, port: env.WORKER_METRICS_PORT } } : {}),
  });
  const ended = worker.done.then(
    () => 'the worker stopped',
    (err: unknown) => `the worker failed: ${err instanceof Error ? err.message : String(err)}`
  );
  return { value: worker, embedded: null, stop: () => worker.shutdown(), ended };
}

async function apiPart(part: {
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
  });
  return { value: { url: api.url, hurry: () => api.hurry() }, embedded: null, stop: () => api.close() };
}
