import { readSetting } from '../../../core/config/setting';
import { McpSqlSettings } from '../../../core/config/settings/mcp';
import { EngineError, ErrorType } from '../../../core/errors';
import { isJsonObject, type Json, type JsonObject } from '../../../core/json';
import { McpAudit } from '../../../core/mcp/constants';
import { bindNamedParams, SqlParamError, type BoundSql, type SqlVerdictCode } from '../../../core/sql';
import type { ToolHandlerContext } from '../deps';
import { executeReadOnly } from './executor';
import { guardToolSql, queryLimits } from './guard';
import { runInterceptors } from './interceptors';
import { auditSqlPreflight } from './preflight';

function requiredSql(ctx: ToolHandlerContext): string {
  const sql = ctx.args['query'] ?? ctx.args['sql'];
  if (typeof sql !== 'string' || sql.trim() === '') {
    throw new EngineError(ErrorType.ToolArgsInvalid, 'postgres.query: missing required parameter "query"', {
      details: { toolCode: ctx.toolCode },
    });
  }
  return sql;
}

function paramsOf(ctx: ToolHandlerContext): JsonObject {
  const params = ctx.args['params'];
  if (params === undefined || params === null) return {};
  if (!isJsonObject(params))
    throw new EngineError(ErrorType.ToolArgsInvalid, 'postgres.query: "params" must be an object of named values');
  return params;
}

/** The read-only guardrail's verdict code for allowed SQL; rejected SQL is audited as a failed execution and thrown. */
function guardSql(ctx: ToolHandlerContext, sql: string, params: JsonObject): SqlVerdictCode {
  const verdict = guardToolSql(ctx, sql);
  if (!verdict.allowed) {
    ctx.audit(McpAudit.DynamicSqlExecutionError, { sql, params, error: verdict.reason, guardrail: verdict.code });
    throw new EngineError(ErrorType.SqlGuardrailRejected, `postgres.query: ${verdict.reason}`, {
      details: { code: verdict.code },
    });
  }
  return verdict.code;
}

function bindParams(sql: string, params: JsonObject): BoundSql {
  try {
    return bindNamedParams(sql, params);
  } catch (err) {
    if (err instanceof SqlParamError)
      throw new EngineError(ErrorType.ToolArgsInvalid, `postgres.query: ${err.message}`);
    throw err;
  }
}

/** Runs the bound query read-only and audits it, done or failed; the result says when rows were cut. */
async function executeQuery(
  ctx: ToolHandlerContext,
  query: { sql: string; params: JsonObject; bound: BoundSql; interceptors: string[] }
): Promise<JsonObject> {
  const { sql, params, bound, interceptors } = query;
  const maxRows = readSetting(ctx.snapshot, McpSqlSettings.postgresQueryMaxRows);
  try {
    const out = await executeReadOnly(ctx.tools.sql, {
      text: bound.text,
      values: bound.values,
      maxRows,
      ...queryLimits(ctx),
    });
    ctx.audit(McpAudit.DynamicSqlExecution, { sql, params, row_count: out.rowCount, rows: out.rows, interceptors });
    const result: JsonObject = { status: 'SUCCESS', rowCount: out.rowCount, rows: out.rows, sql, interceptors };
    if (out.truncatedBy === 'ROWS') result['warning'] = `Result set truncated to ${maxRows} rows.`;
    if (out.truncatedBy === 'BYTES') result['warning'] = `Result set truncated to ${out.rowCount} rows (size cap).`;
    return result;
  } catch (err) {
    ctx.audit(McpAudit.DynamicSqlExecutionError, {
      sql,
      params,
      error: err instanceof Error ? err.message : String(err),
    });
    throw err;
  }
}

/**
 * The built-in `postgres.query` tool (§7.3): SQL from `query` (alias `sql`) with named `params`,
 * run through the interceptor chain, then the read-only guardrail (on the rewritten SQL), then
 * read-only execution. Result: `{status, rowCount, rows, warning?, sql, interceptors}`.
 */
export async function runPostgresQuery(ctx: ToolHandlerContext): Promise<Json> {
  const params = paramsOf(ctx);
  const requested = requiredSql(ctx);
  const intercepted = await runInterceptors(ctx.tools.interceptors, requested, {
    toolCode: ctx.toolCode,
    args: ctx.args,
    conversationId: ctx.session.conversationId,
  });
  const sql = intercepted.sql;
  const guardrail = guardSql(ctx, sql, params);
  const bound = bindParams(sql, params);
  auditSqlPreflight(ctx, {
    sqlBefore: requested,
    sqlAfter: sql,
    fields: { params_before: params, params_after: params },
    diagnostics: { guardrail, interceptors: intercepted.applied, bound: bound.names },
  });
  return executeQuery(ctx, { sql, params, bound, interceptors: intercepted.applied });
}
