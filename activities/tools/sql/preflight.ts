import type { JsonObject } from '../../../core/json';
import { McpAudit } from '../../../core/mcp/constants';
import type { ToolHandlerContext } from '../deps';

/** What the checks before execution found: the SQL before and after rewriting, and what each check decided. */
export interface PreflightFindings {
  sqlBefore: string;
  sqlAfter: string;
  /** Written beside the common fields under the tool's own names (`params`, or `params_before`/`params_after`). */
  fields: JsonObject;
  diagnostics: JsonObject;
}

/**
 * MCP_DB_PREFLIGHT just before a SQL tool's query runs, as the Java engine writes per attempt. Here each SQL
 * tool has one attempt and no LLM repair, so `attempt` is 1 and `max_retries` 0. Java's attempt fields sit in
 * `_meta`, which here is the writer's (the session): they are top-level. Java's `schema_knowledge_used` and
 * `semantic_knowledge_used` come from its schema preflight and repair prompt, which this engine does not have;
 * `preflight_diagnostics` names what this engine checked instead (docs/migrating-from-java.md §6).
 */
export function auditSqlPreflight(ctx: ToolHandlerContext, found: PreflightFindings): void {
  ctx.audit(McpAudit.DbPreflight, {
    tool_code: ctx.toolCode,
    tool_group: ctx.toolGroup,
    attempt: 1,
    max_retries: 0,
    sql_auto_repair_enabled: false,
    sql_before: found.sqlBefore,
    sql_after: found.sqlAfter,
    ...found.fields,
    preflight_diagnostics: found.diagnostics,
  });
}
