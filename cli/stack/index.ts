import { startApiServer } from '../../api/server';
import type { Env, TemporalMode } from '../../config/env';
import { migrate } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import type { ConfigRows } from '../../core/config/types';
import { applyConfigRows } from '../../db/config/apply';
import { overlayConfigRows } from '../../db/config/yaml-tree';
import { resolveSeedPacks, seedPacks } from '../../db/seed';
import { packConfigRows } from '../../db/seed/merge';
import { silentLogger, type Logger } from '../../observability/logger';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { runnableWorkflowSource } from '../../worker/bundle-cache';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { databasePart, llmPart, toolsPart, type Part } from './parts';
import { temporalPart, type TemporalEndpoint } from './temporal-part';

export interface StackOptions {
  env: Env;
  /** Directory for embedded state (PostgreSQL data, dev-server journal). */
  home: string;
  apiPort?: number;
  temporalPort?: number;
  /** Overrides CONVENGINE_TEMPORAL when TEMPORAL_ADDRESS is unset. */
  temporal?: TemporalMode;
  /** Serve the real server's Web UI (default true). */
  temporalUi?: boolean;
  /** Packs and YAML tree to load (default: every bundled pack). */
  config?: StackConfig;
  log(line: string): void;
  /** Runtime, worker and API log lines (`convengine start` passes a pretty one at warn); default none. */
  logger?: Logger;
}

export interface RunningStack {
  apiUrl: string;
  temporalAddress: string;
  temporal: TemporalEndpoint;
  databaseUrl: string;
  embedded: string[];
  stop(): Promise<void>;
}

/** What the stack loads into the database: bundled packs (none, some, all) and the author's own YAML tree. */
export interface StackConfig {
  /** Bundled seed pack names, or ['all']; [] for none. */
  packs: readonly string[];
  /** Rows of a `--config <dir>` YAML tree (already validated), laid over the packs. */
  rows?: ConfigRows;
}

/**
 * Migrates, seeds the chosen packs, then, with a YAML tree, makes the config exactly the packs'
 * rows plus the tree's (the tree wins on equal primary keys), validated as a whole.
 */
export async function prepareDatabase(url: string, config: StackConfig = { packs: ['all'] }): Promise<void> {
  const handle = openDatabase(url, { max: 2 });
  try {
    await migrate(handle.pool);
    if (config.packs.length > 0) await seedPacks(handle.db, config.packs);
    if (config.rows) {
      const packRows = packConfigRows(config.packs.length > 0 ? resolveSeedPacks(config.packs) : []);
      await applyConfigRows(handle.db, overlayConfigRows(packRows, config.rows));
    }
  } finally {
    await handle.close();
  }
}

/**
 * Everything in one process on embedded defaults: PostgreSQL (db/embedded) when DATABASE_URL is unset,
 * a local Temporal when TEMPORAL_ADDRESS is unset (the real server when installed, else the dev
 * server; see temporal-part.ts), the scripted LLM when no API key is set, the demo
 * tool server; then migrate, seed every pack, run a worker and the API.
 */
export async function startStack(options: StackOptions): Promise<RunningStack> {
  const logger = options.logger ?? silentLogger();
  installTemporalRuntime({ logger, sdkMetricsAddress: options.env.TEMPORAL_SDK_METRICS_ADDRESS });
  const stops: Part<unknown>[] = [];
  const keep = <T>(part: Part<T>): T => (stops.push(part as Part<unknown>), part.value);
  const stopAll = async () => {
    for (const part of stops.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    // Webpack (on a cold bundle cache), the database and Temporal come up side by side.
    const warming = runnableWorkflowSource();
    warming.catch(() => undefined);
    const [database, temporalServer] = await Promise.allSettled([
      preparedDatabasePart(options),
      temporalPart({
        env: options.env,
        home: options.home,
        port: options.temporalPort ?? 7233,
        mode: options.temporal ?? options.env.CONVENGINE_TEMPORAL,
        ui: options.temporalUi ?? true,
        logger,
      }),
    ]);
    for (const part of [database, temporalServer]) if (part.status === 'fulfilled') stops.push(part.value);
    if (database.status === 'rejected') throw database.reason;
    if (temporalServer.status === 'rejected') throw temporalServer.reason;
    const databaseUrl = database.value.value;
    const temporal = temporalServer.value.value;
    const temporalAddress = temporal.address;
    const llmUrl = keep(await llmPart(options.env, databaseUrl));
    const toolEnv = keep(await toolsPart());
    const env: Env = llmUrl ? { ...options.env, ANTHROPIC_BASE_URL: llmUrl } : options.env;
    keep(await workerPart({ env, databaseUrl, address: temporalAddress, toolEnv, logger }));
    const api = await startApiServer({
      env,
      databaseUrl,
      temporalAddress,
      port: options.apiPort,
      logger,
      temporalUiUrl: temporal.uiUrl ?? undefined,
    });
    stops.push({ value: api, embedded: null, stop: () => api.close() });
    const embedded = stops.map((p) => p.embedded).filter((e): e is string => e !== null);
    return { apiUrl: api.url, temporalAddress, temporal, databaseUrl, embedded, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** The database part, migrated and loaded with the chosen config; stopped again when that fails. */
async function preparedDatabasePart(options: StackOptions): Promise<Part<string>> {
  const part = await databasePart(options.env, options.home);
  try {
    await prepareDatabase(part.value, options.config);
    return part;
  } catch (err) {
    await part.stop().catch(() => undefined);
    throw err;
  }
}

async function workerPart(part: {
  env: Env;
  databaseUrl: string;
  address: string;
  toolEnv: Record<string, string>;
  logger: Logger;
}): Promise<Part<RunningWorker>> {
  const { env } = part;
  const worker = await runTurnWorker({
    env,
    databaseUrl: part.databaseUrl,
    address: part.address,
    toolEnv: { ...process.env, ...part.toolEnv },
    tuning: { shutdownGraceTime: '5 seconds' },
    logger: part.logger,
    // One process, one API port: the worker's own probe server only when asked for.
    ...(env.WORKER_METRICS_PORT !== undefined ? { probe: { host: env.HOST, port: env.WORKER_METRICS_PORT } } : {}),
  });
  return { value: worker, embedded: null, stop: () => worker.shutdown() };
}

/** `convengine start` is for humans: the runtime, worker and API speak at warn unless LOG_LEVEL asks for debug/trace. */
export function stackLogLevel(env: Env): string {
  return env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace' ? env.LOG_LEVEL : 'warn';
}
