import { toolCodeKey } from '../../core/config/vocabulary';
import type { Pool } from 'pg';
import type { ConfigSnapshot } from '../../core/config/types';
import type { Json, JsonObject } from '../../core/json';
import type { Session } from '../../core/session';
import type { ToolCallRequest } from '../../core/turn/contracts';
import type { SqlParser } from '../../core/sql';
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
  /** The tools role's own pool (D20): tool SQL never runs on the engine's connection or login. */
  sql: ReadOnlySqlTarget;
  /** PostgreSQL's parser for the SQL guardrail (loaded once, see sql/parser.ts). */
  sqlParser: SqlParser;
  circuits: CircuitRegistry;
  env: Readonly<Record<string, string | undefined>>;
  /** Ordered postgres.query interceptors; the framework default is always last. */
  interceptors: readonly PostgresQueryInterceptor[];
  /** Consumer handlers keyed by lower-cased tool code. */
  handlers: ReadonlyMap<string, ToolHandler>;
  sleep?: (ms: number) => Promise<void>;
}

export interface ToolDepsOptions {
  /** A pool whose login is the tools role (see db/tools-role.ts), never the engine's pool. */
  sqlPool: Pool;
  sqlParser: SqlParser;
  /** Environment tool rows may read (`CONVENGINE_TOOL_*`, auth secrets). */
  env: Readonly<Record<string, string | undefined>>;
  interceptors?: readonly PostgresQueryInterceptor[];
  handlers?: Record<string, ToolHandler>;
  sleep?: (ms: number) => Promise<void>;
}

export function createToolDeps(options: ToolDepsOptions): ToolDeps {
  const sql: ReadOnlySqlTarget = { pool: options.sqlPool };
  const handlers = new Map<string, ToolHandler>();
  for (const [code, handler] of Object.entries(options.handlers ?? {})) handlers.set(toolCodeKey(code), handler);
  return {
    sql,
    sqlParser: options.sqlParser,
    circuits: new CircuitRegistry(),
    env: options.env,
    interceptors: [...(options.interceptors ?? []), defaultPostgresQueryInterceptor(informationSchemaLookup(sql))],
    handlers,
    sleep: options.sleep,
  };
}
