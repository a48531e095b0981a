import type { McpDbToolRow } from '../../../core/config/tool-rows';
import { EngineError, ErrorType } from '../../../core/errors';
import type { Json, JsonObject } from '../../../core/json';
import {
  allowedIdentifierValues,
  expandIdentifierPlaceholders,
  PLAIN_IDENTIFIER,
} from '../../../core/mcp/db-identifiers';
import { McpAudit } from '../../../core/mcp/constants';
import { bindNamedParams, SqlParamError } from '../../../core/sql';
import type { ToolHandlerContext } from '../deps';
import { executeReadOnly } from '../sql/executor';
import { guardToolSql, queryLimits } from '../sql/guard';
import { auditSqlPreflight } from '../sql/preflight';

/**
 * A ce_mcp_db_tool (D8): a SQL template with `:name` parameters bound from the args,
 * `${identifier}` placeholders that must be plain identifiers listed in allowed_identifiers (none when unlisted),
 * rows capped at max_rows. The args have already matched param_schema (the executor checks every
 * tool's args, core/mcp/tool-args.ts). safe_mode (on by default) also enforces the guardrail's
 * function/keyword policy; the statement must be a single read-only query either way, and it
 * runs read-only regardless.
 */
/**
 * Expands `${name}` with a plain identifier from args[name], listed under allowed_identifiers[name]; a name with no
 * list allows none (core/mcp/db-identifiers.ts).
 */
export function expandIdentifiers(toolCode: string, row: McpDbToolRow, args: JsonObject): string {
  return expandIdentifierPlaceholders(row.sqlTemplate, (name) => {
    const value = args[name];
    const fail = (why: string): never => {
      throw new EngineError(ErrorType.ToolArgsInvalid, `DB tool ${toolCode}: identifier \${${name}} ${why}`, {
        details: { toolCode, name },
      });
    };
    if (typeof value !== 'string' || !PLAIN_IDENTIFIER.test(value))
      return fail(`must be a plain identifier (got ${JSON.stringify(value ?? null)})`);
    const allowed = allowedIdentifierValues(row.allowedIdentifiers, name);
    if (allowed.length === 0) return fail('has no allowed_identifiers entry, so no identifier is allowed');
    if (!allowed.includes(value)) return fail(`value "${value}" is not in allowed_identifiers.${name}`);
    return value;
  });
}

export async function runDbTool(ctx: ToolHandlerContext, row: McpDbToolRow): Promise<Json> {
  const sql = expandIdentifiers(ctx.toolCode, row, ctx.args);
  const verdict = guardToolSql(ctx, sql, row.safeMode);
  if (!verdict.allowed) {
    throw new EngineError(ErrorType.SqlGuardrailRejected, `DB tool ${ctx.toolCode}: ${verdict.reason}`, {
      details: { toolCode: ctx.toolCode, code: verdict.code },
    });
  }
  const params: JsonObject = { ...ctx.args, limit: ctx.args['limit'] ?? row.maxRows };
  let bound;
  try {
    bound = bindNamedParams(sql, params);
  } catch (err) {
    if (err instanceof SqlParamError)
      throw new EngineError(ErrorType.ToolArgsInvalid, `DB tool ${ctx.toolCode}: ${err.message}`);
    throw err;
  }
  auditSqlPreflight(ctx, {
    sqlBefore: sql,
    sqlAfter: sql,
    fields: { tool_id: row.toolId, params },
    diagnostics: { guardrail: verdict.code, policy_enforced: row.safeMode, bound: bound.names },
  });
  const out = await executeReadOnly(ctx.tools.sql, {
    text: bound.text,
    values: bound.values,
    maxRows: row.maxRows,
    ...queryLimits(ctx),
  });
  ctx.audit(McpAudit.DbSqlExecution, {
    tool_code: ctx.toolCode,
    tool_group: ctx.toolGroup,
    sql,
    params,
    bound: bound.names,
    row_count: out.rowCount,
    truncated: out.truncated,
    rows: out.rows,
  });
  return { rows: out.rows, rowCount: out.rowCount, truncated: out.truncated };
}
