import { readSetting, readSettingFrom } from '../../../core/config/setting';
import { McpSqlSettings } from '../../../core/config/settings/mcp';
import type { ConfigRows } from '../../../core/config/types';
import type { ToolSqlCheck } from '../../../core/config/validation/context';
import { checkReadOnlySql, sqlPolicyFromRows, type SqlParser, type SqlVerdict } from '../../../core/sql';
import type { ToolHandlerContext } from '../deps';
import type { ReadOnlyQuery } from './executor';

/**
 * The guardrail and the execution limits as every SQL tool applies them: the turn's
 * ce_mcp_sql_guardrail rows, the configured business schemas, and the McpDbExecutor settings.
 */
export function guardToolSql(ctx: ToolHandlerContext, sql: string, enforcePolicy = true): SqlVerdict {
  return toolSqlVerdict(sql, ctx.tools.sqlParser, ctx.snapshot.rows, enforcePolicy);
}

/**
 * The same verdict from config rows: a tool at run time, and `config validate`/`apply` checking a
 * sql_template before it is stored (ValidationOptions.checkToolSql). Throws when the business-schemas
 * setting does not parse (its own check reports that).
 */
export function toolSqlVerdict(sql: string, parser: SqlParser, rows: ConfigRows, enforcePolicy = true): SqlVerdict {
  return checkReadOnlySql(sql, parser, sqlPolicyFromRows(rows.sqlGuardrails), {
    enforcePolicy,
    schemas: readSettingFrom(rows.configs, McpSqlSettings.businessSchemas),
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

/**
 * ValidationOptions.checkToolSql with `parser`: every path that validates config (the config store of the worker
 * and the API, `validate-config`, `config validate|apply`) refuses a sql_template the tool would refuse at run
 * time. An unparseable business-schemas setting is left to its own check, which names it.
 */
export function toolSqlChecker(parser: SqlParser): ToolSqlCheck {
  return (sql, rows, options) => {
    try {
      const verdict = toolSqlVerdict(sql, parser, rows, options?.enforcePolicy);
      return verdict.allowed ? null : verdict.reason;
    } catch {
      return null;
    }
  };
}
