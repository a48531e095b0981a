import { DefaultLogger, Runtime } from '@temporalio/worker';
import { startApiServer } from '../../api/server';
import type { Env, TemporalMode } from '../../config/env';
import { migrate } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { seedPacks } from '../../db/seed';
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
  log(line: string): void;
}

export interface RunningStack {
  apiUrl: string;
  temporalAddress: string;
  temporal: TemporalEndpoint;
  databaseUrl: string;
  embedded: string[];
  stop(): Promise<void>;
}

async function prepareDatabase(url: string): Promise<void> {
  const handle = openDatabase(url, { max: 2 });
  try {
    await migrate(handle.pool);
    await seedPacks(handle.db, ['all']);
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
  quietRuntime(options.env);
  const stops: Part<unknown>[] = [];
  const keep = <T>(part: Part<T>): T => (stops.push(part as Part<unknown>), part.value);
  const stopAll = async () => {
    for (const part of stops.reverse()) await part.stop().catch(() => undefined);
  };
  try {
    const databaseUrl = keep(await databasePart(options.env, options.home));
    await prepareDatabase(databaseUrl);
    const temporal = keep(
      await temporalPart({
        env: options.env,
        home: options.home,
        port: options.temporalPort ?? 7233,
        mode: options.temporal ?? options.env.CONVENGINE_TEMPORAL,
        ui: options.temporalUi ?? true,
      })
    );
    const temporalAddress = temporal.address;
    const llmUrl = keep(await llmPart(options.env));
    const toolEnv = keep(await toolsPart());
    const env: Env = llmUrl ? { ...options.env, ANTHROPIC_BASE_URL: llmUrl } : options.env;
    keep(await workerPart(env, databaseUrl, temporalAddress, toolEnv));
    const apiEnv: Env = { ...env, LOG_LEVEL: verbose(env) ? env.LOG_LEVEL : 'warn' };
    const api = await startApiServer({ env: apiEnv, databaseUrl, temporalAddress, port: options.apiPort });
    stops.push({ value: api, embedded: null, stop: () => api.close() });
    const embedded = stops.map((p) => p.embedded).filter((e): e is string => e !== null);
    return { apiUrl: api.url, temporalAddress, temporal, databaseUrl, embedded, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

async function workerPart(
  env: Env,
  databaseUrl: string,
  address: string,
  toolEnv: Record<string, string>
): Promise<Part<RunningWorker>> {
  const worker = await runTurnWorker({
    env,
    databaseUrl,
    address,
    toolEnv: { ...process.env, ...toolEnv },
    tuning: { shutdownGraceTime: '5 seconds' },
  });
  return { value: worker, embedded: null, stop: () => worker.shutdown() };
}

function verbose(env: Env): boolean {
  return env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace';
}

let runtimeInstalled = false;

/** One process runs everything here; the SDK's per-component INFO chatter would drown the ready line. */
function quietRuntime(env: Env): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger(verbose(env) ? 'DEBUG' : 'WARN') });
}
