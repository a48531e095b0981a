import { mkdirSync } from 'node:fs';
import type { Env } from '../../config/env';
import { silentLogger } from '../../observability/logger';
import type * as AssembleModule from './assemble';
import { databasePart } from './database-part';
import { temporalPart } from './temporal-part';
import { stopServers, type RunningStack, type StackOptions, type StackServers } from './types';

export type { RunningStack, StackConfig, StackOptions } from './types';

/**
 * Everything in one process on embedded defaults: PostgreSQL (db/embedded) when DATABASE_URL is unset,
 * a local Temporal when TEMPORAL_ADDRESS is unset (the real server when installed, else the dev
 * server; see temporal-part.ts), the scripted LLM when no API key is set, the demo
 * tool server; then migrate, seed every pack, run a worker and the API (./assemble.ts).
 *
 * The PostgreSQL server and the real Temporal server are child processes: they are started before this
 * process loads the worker, the API and their dependencies (over a second of module loading on a slow
 * machine), so they boot meanwhile. This module therefore imports nothing heavy.
 */
export async function startStack(stackOptions: StackOptions): Promise<RunningStack> {
  const options = { ...stackOptions, logger: stackOptions.logger ?? silentLogger() };
  // Every embedded part keeps its state here; with DATABASE_URL set, nothing else would create it.
  mkdirSync(options.home, { recursive: true, mode: 0o700 });
  const launched = [launchSignal(), launchSignal()] as const;
  const servers: StackServers = {
    database: databasePart(options.env, options.home, { onSpawn: launched[0].fire }),
    temporal: temporalPart({
      env: options.env,
      home: options.home,
      port: options.temporalPort ?? 7233,
      portGiven: options.temporalPortGiven ?? false,
      uiPort: options.temporalUiPort,
      mode: options.temporal ?? options.env.CONVENGINE_TEMPORAL,
      ui: options.temporalUi ?? true,
      logger: options.logger,
      onSpawn: launched[1].fire,
    }),
  };
  // Awaited in assembleStack; until then a failure must not count as unhandled.
  for (const server of Object.values(servers)) (server as Promise<unknown>).catch(() => undefined);
  // Loading modules blocks the event loop: first let each server reach its spawn (or finish, or fail,
  // or be external or in-process, which spawns nothing).
  await Promise.all([
    Promise.race([launched[0].fired, servers.database.then(noop, noop)]),
    Promise.race([launched[1].fired, servers.temporal.then(noop, noop)]),
  ]);
  let assemble: typeof AssembleModule;
  try {
    // require(), not import(): a native import() of an extensionless CommonJS path fails under tsx.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded once the servers are spawned
    assemble = require('./assemble') as typeof AssembleModule;
  } catch (err) {
    await stopServers(servers);
    throw err;
  }
  return assemble.assembleStack(options, servers);
}

const noop = (): void => undefined;

function launchSignal(): { fire(): void; fired: Promise<void> } {
  let fire = noop;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fire: () => fire(), fired };
}

/** `convengine start` is for humans: the runtime, worker and API speak at warn unless LOG_LEVEL asks for debug/trace. */
export function stackLogLevel(env: Env): string {
  return env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace' ? env.LOG_LEVEL : 'warn';
}
