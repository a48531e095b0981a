import { toolCodeKey } from '../../core/config/vocabulary';
import { EngineError, ErrorType } from '../../core/errors';
import type { Json } from '../../core/json';
import { SemanticTool } from '../../core/mcp/constants';
import { assertToolArgs } from '../../core/mcp/tool-args';
import { findToolRow } from '../../core/mcp/tools';
import { runDbTool } from './db/db-tool';
import type { ToolHandlerContext } from './deps';
import { invokeHttpTool } from './http/invoker';
import { mapResponse, responseMappingOf } from './http/mapping';
import { toolCallContext } from './context';
import { storableToolOutput } from './output';
import { runSemanticInterpret } from './semantic/interpret';
import { runSemanticQuery } from './semantic/query';
import { runPostgresQuery } from './sql/postgres-query';

/**
 * Runs one tool (§6.7): a consumer handler registered for the tool code wins; otherwise the
 * built-in DB tools (postgres.query and the semantic chain), a ce_mcp_db_tool or a
 * ce_mcp_http_tool row of the tool. Anything else is a config error, never a silent no-op.
 */
const BUILT_IN_DB_TOOLS: Record<string, (ctx: ToolHandlerContext) => Promise<Json>> = {
  [SemanticTool.postgres]: runPostgresQuery,
  [SemanticTool.interpret]: runSemanticInterpret,
  [SemanticTool.query]: runSemanticQuery,
};

function toolId(ctx: ToolHandlerContext): number {
  const row = findToolRow(ctx.snapshot, ctx.toolCode);
  if (!row) throw new EngineError(ErrorType.ToolNotAllowed, `Tool ${ctx.toolCode} is not configured in ce_mcp_tool`);
  return row.toolId;
}

async function runDbGroup(ctx: ToolHandlerContext): Promise<Json> {
  const builtIn = BUILT_IN_DB_TOOLS[toolCodeKey(ctx.toolCode)];
  if (builtIn) return builtIn(ctx);
  const id = toolId(ctx);
  const row = ctx.snapshot.rows.mcpDbTools.find((r) => r.toolId === id);
  if (!row)
    throw new EngineError(
      ErrorType.ConfigInvalid,
      `Missing ce_mcp_db_tool row for DB tool ${ctx.toolCode} (tool_id ${id})`
    );
  return runDbTool(ctx, row);
}

async function runHttpGroup(ctx: ToolHandlerContext, idempotencyKey: string | null): Promise<Json> {
  const id = toolId(ctx);
  const row = ctx.snapshot.rows.mcpHttpTools.find((r) => r.toolId === id);
  if (!row)
    throw new EngineError(
      ErrorType.ConfigInvalid,
      `Missing ce_mcp_http_tool row for HTTP tool ${ctx.toolCode} (tool_id ${id})`
    );
  const invocation = {
    toolCode: ctx.toolCode,
    row,
    args: ctx.args,
    ctx: toolCallContext(ctx.session),
    idempotencyKey,
    callId: ctx.call.idempotencyKey,
  };
  return invokeHttpTool(invocation, { circuits: ctx.tools.circuits, env: ctx.tools.env, sleep: ctx.tools.sleep });
}

/**
 * `idempotencyKey` is sent to HTTP write tools (null for read-only tools). The arguments are
 * checked against the tool's input schema first, whoever asked for the call (planner or request)
 * and whatever runs it (a consumer handler included): a rejected call never leaves the machine. The
 * result is taken in as storableToolOutput allows.
 */
export async function executeTool(ctx: ToolHandlerContext, idempotencyKey: string | null): Promise<Json> {
  return storableToolOutput(ctx.toolCode, await runTool(ctx, idempotencyKey));
}

async function runTool(ctx: ToolHandlerContext, idempotencyKey: string | null): Promise<Json> {
  const row = findToolRow(ctx.snapshot, ctx.toolCode);
  if (!row) throw new EngineError(ErrorType.ToolNotAllowed, `Tool ${ctx.toolCode} is not configured in ce_mcp_tool`);
  assertToolArgs(ctx.snapshot, row, ctx.args);
  const handler = ctx.tools.handlers.get(toolCodeKey(ctx.toolCode));
  if (handler) return handler(ctx);
  if (ctx.toolGroup === 'DB') return runDbGroup(ctx);
  if (ctx.toolGroup === 'HTTP_API') return runHttpGroup(ctx, idempotencyKey);
  throw new EngineError(
    ErrorType.ConfigInvalid,
    `No executor for tool group ${ctx.toolGroup} (tool ${ctx.toolCode}); register a tool handler for it`
  );
}

/**
 * #22 markDone: what the tool would have returned, from what an operator verified upstream. For an
 * HTTP tool that is the upstream's response body, mapped by the row's response mapping into the same
 * shape a real call records; a DB tool or a handler's result is taken as given.
 */
export function verifiedToolResult(ctx: ToolHandlerContext, verified: Json): Json {
  if (ctx.tools.handlers.has(toolCodeKey(ctx.toolCode)) || ctx.toolGroup !== 'HTTP_API') return verified;
  const id = toolId(ctx);
  const row = ctx.snapshot.rows.mcpHttpTools.find((r) => r.toolId === id);
  if (!row) return verified;
  const body = typeof verified === 'string' ? verified : JSON.stringify(verified);
  return {
    status: 200,
    attempt: 0,
    latencyMs: 0,
    mapped: mapResponse(ctx.toolCode, responseMappingOf(ctx.toolCode, row), body),
  };
}
