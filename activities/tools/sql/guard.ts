import { readSetting } from '../../../core/config/setting';
import { McpSqlSettings } from '../../../core/config/settings/mcp';
import { checkReadOnlySql, sqlPolicyFromRows, type SqlVerdict } from '../../../core/sql';
import type { ToolHandlerContext } from '../deps';
import type { ReadOnlyQuery } from './executor';

/**
 * The guardrail and the execution limits as every SQL tool applies them: the turn's
 * ce_mcp_sql_guardrail rows, the configured business schemas, and the McpDbExecutor settings.
 */
export function guardToolSql(ctx: ToolHandlerContext, sql: string, enforcePolicy = true): SqlVerdict {
  return checkReadOnlySql(sql, ctx.tools.sqlParser, sqlPolicyFromRows(ctx.snapshot.rows.sqlGuardrails), {
    enforcePolicy,
    schemas: readSetting(ctx.snapshot, McpSqlSettings.businessSchemas),
  });
}

/** Server-side limits of a tool query, from the turn's pinned config. */
export function queryLimits(ctx: ToolHandlerContext): Omit<ReadOnlyQuery, 'text' | 'values' | 'maxRows'> {
  return {
    statementTimeoutMs: readSetting(ctx.snapshot, McpSqlSettings.statementTimeoutMs),
    lockTimeoutMs: readSetting(ctx.snapshot, McpSqlSettings.lockTimeoutMs),
    maxResultBytes: readSetting(ctx.snapshot, McpSqlSettings.maxResultBytes),
    schemas: readSetting(ctx.snapshot, McpSqlSettings.businessSchemas),
  };
}
