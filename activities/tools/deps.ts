import type { Pool } from 'pg';
import type { ConfigSnapshot } from '../../core/config/types';
import type { Json, JsonObject } from '../../core/json';
import type { Session } from '../../core/session';
import type { ToolCallRequest } from '../../core/turn/contracts';
import { createPool } from '../../db/pool';
import type { ActivityDeps } from '../deps';
import { CircuitRegistry } from './http/circuit';
import type { ReadOnlySqlTarget } from './sql/executor';
import {
  defaultPostgresQueryInterceptor,
  informationSchemaLookup,
  type PostgresQueryInterceptor,
} from './sql/interceptors';

/**
 * What tool execution reaches the outside world through: the read-only SQL target, the HTTP
 * circuit breakers (one registry per worker), the environment tool rows may read, the
 * postgres.query interceptor chain and consumer tool handlers (by tool code, ahead of the
 * table-configured DB/HTTP tools — the equivalent of the Java engine's handler beans).
 */
export interface ToolHandlerContext {
  toolCode: string;
  toolGroup: string;
  args: JsonObject;
  call: ToolCallRequest;
  session: Session;
  snapshot: ConfigSnapshot;
  deps: ActivityDeps;
  tools: ToolDeps;
  /** Emits an audit from inside the tool (stamped with the current intent/state). */
  audit(stage: string, payload: JsonObject): void;
}

export type ToolHandler = (ctx: ToolHandlerContext) => Promise<Json>;

export interface ToolDeps {
  sql: ReadOnlySqlTarget;
  circuits: CircuitRegistry;
  env: Readonly<Record<string, string | undefined>>;
  /** Ordered postgres.query interceptors; the framework default is always last. */
  interceptors: readonly PostgresQueryInterceptor[];
  /** Consumer handlers keyed by lower-cased tool code. */
  handlers: ReadonlyMap<string, ToolHandler>;
  sleep?: (ms: number) => Promise<void>;
}

export interface ToolDepsOptions {
  /** The app pool; used with SET LOCAL ROLE when no tools database URL is given. */
  appPool: Pool;
  /** A connection string whose login role can only read (TOOLS_DATABASE_URL). */
  toolsDatabaseUrl?: string;
  env?: Readonly<Record<string, string | undefined>>;
  interceptors?: readonly PostgresQueryInterceptor[];
  handlers?: Record<string, ToolHandler>;
  sleep?: (ms: number) => Promise<void>;
}

export function createToolDeps(options: ToolDepsOptions): ToolDeps {
  const sql: ReadOnlySqlTarget = options.toolsDatabaseUrl
    ? { pool: createPool(options.toolsDatabaseUrl, { max: 5 }), dedicatedRole: true }
    : { pool: options.appPool, dedicatedRole: false };
  const handlers = new Map<string, ToolHandler>();
  for (const [code, handler] of Object.entries(options.handlers ?? {}))
    handlers.set(code.trim().toLowerCase(), handler);
  return {
    sql,
    circuits: new CircuitRegistry(),
    env: options.env ?? process.env,
    interceptors: [...(options.interceptors ?? []), defaultPostgresQueryInterceptor(informationSchemaLookup(sql))],
    handlers,
    sleep: options.sleep,
  };
}

const defaults = new WeakMap<ActivityDeps, ToolDeps>();

/** drizzle's node-postgres database exposes its pool as `$client` (the Database type omits it). */
function appPoolOf(deps: ActivityDeps): Pool {
  const pool = (deps.db as unknown as { $client?: Pool }).$client;
  if (!pool) throw new Error('ActivityDeps.db has no pg pool; pass deps.tools explicitly');
  return pool;
}

/** `deps.tools`, or defaults built once per deps object from the app pool and the process env. */
export function toolDepsOf(deps: ActivityDeps): ToolDeps {
  if (deps.tools) return deps.tools;
  let tools = defaults.get(deps);
  if (!tools) {
    tools = createToolDeps({
      appPool: appPoolOf(deps),
      toolsDatabaseUrl: process.env['TOOLS_DATABASE_URL'] || undefined,
    });
    defaults.set(deps, tools);
  }
  return tools;
}
