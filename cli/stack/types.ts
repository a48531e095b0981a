import type { TemporalConnectionSettings } from '../../config/temporal-connection';
import type { Env, TemporalMode } from '../../config/env';
import type { ConfigRows } from '../../core/config/types';
import type { Logger } from '../../observability/logger';

/** The Temporal frontend the stack's worker and API use. */
export interface TemporalEndpoint {
  address: string;
  /** How the worker and the API connect: TLS and API key for TEMPORAL_ADDRESS, plaintext to a server of ours. */
  connection: TemporalConnectionSettings;
  /** The Web UI, when the server serves one. */
  uiUrl: string | null;
  /** Which server this is and where (`embedded dev server at 127.0.0.1:7233`), for the start banner. */
  server: string;
}

export interface StackOptions {
  env: Env;
  /** Directory for embedded state (PostgreSQL data, dev-server journal). */
  home: string;
  apiPort?: number;
  temporalPort?: number;
  /** The real server's Web UI port; default temporalPort + 1000. */
  temporalUiPort?: number;
  /**
   * temporalPort was asked for (--temporal-port), not a default. When it or temporalUiPort was asked for, a taken
   * Temporal port is an error instead of replaced by a free port.
   */
  temporalPortGiven?: boolean;
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
  /**
   * Stops every part, last started first: the API drains (running turns answer their callers, for at
   * most API_DRAIN_MS), then the worker, then the servers and the embedded database.
   */
  stop(): Promise<void>;
  /** Cuts the API's drain short (a second Ctrl-C): waiting callers get 202 RUNNING now. */
  hurry(): void;
  /**
   * Resolves, with what happened, when a part ends on its own (an embedded server's process exits, the worker
   * fails): the stack can no longer serve turns, so its owner stops the rest. Never resolves once stop() runs.
   */
  broken: Promise<string>;
}

/** What the stack loads into the database: bundled packs (none, some, all) and the author's own YAML tree. */
export interface StackConfig {
  /** Bundled seed pack names, or ['all']; [] for none. */
  packs: readonly string[];
  /** Rows of a `--config <dir>` YAML tree (already validated), laid over the packs. */
  rows?: ConfigRows;
}

/** The servers the stack runs in processes of their own, started first. */
export interface StackServers {
  database: Promise<Part<string>>;
  temporal: Promise<Part<TemporalEndpoint>>;
}

/** Stops whichever servers started. */
export async function stopServers(servers: StackServers): Promise<void> {
  const settled = await Promise.allSettled([servers.database, servers.temporal]);
  for (const part of settled) if (part.status === 'fulfilled') await part.value.stop().catch(() => undefined);
}

/** A started part of the stack: what it gives the others, and how to stop it. */
export interface Part<T> {
  value: T;
  /** Human description when this part is embedded (printed at start), null when external. */
  embedded: string | null;
  stop(): Promise<void>;
  /** Resolves, with what happened, when the part ends, on its own or by stop(); absent for parts that cannot. */
  ended?: Promise<string>;
}

export const noStop = async (): Promise<void> => undefined;
