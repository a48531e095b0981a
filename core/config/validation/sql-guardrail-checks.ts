import { SQL_GUARDRAIL_RULE_TYPES, oneOf } from '../vocabulary';
import { deniedClassOf, parseFunctionRef } from '../../sql/functions';
import type { ValidationContext } from './context';

/** ce_mcp_sql_guardrail rows: a known rule type, a function name or keyword, and no ALLOW of what is never allowed. */
export function checkSqlGuardrails(ctx: ValidationContext): void {
  for (const g of ctx.rows.sqlGuardrails) {
    if (!g.enabled) continue;
    if (!oneOf(SQL_GUARDRAIL_RULE_TYPES, g.ruleType)) {
      ctx.sink.violation(
        'ce_mcp_sql_guardrail',
        g.guardrailId,
        `rule_type "${g.ruleType}" is not one of ${SQL_GUARDRAIL_RULE_TYPES.join(', ')}`
      );
    }
    if (!/^[A-Za-z_][\w.]*$/.test(g.matchValue.trim())) {
      ctx.sink.violation(
        'ce_mcp_sql_guardrail',
        g.guardrailId,
        `match_value "${g.matchValue}" must be a function name or keyword`
      );
    }
    const denied = g.ruleType.trim().toUpperCase() === 'ALLOW_FUNCTION' ? neverAllowed(g.matchValue) : null;
    if (denied) {
      const reason = `ALLOW_FUNCTION ${g.matchValue.trim()} has no effect: a function that ${denied} is never allowed`;
      ctx.sink.warning('ce_mcp_sql_guardrail', g.guardrailId, reason);
    }
  }
}

/** What the function named by an ALLOW_FUNCTION row does, when no row can allow it (core/sql/functions.ts). */
function neverAllowed(matchValue: string): string | null {
  return deniedClassOf(parseFunctionRef(matchValue).name);
}
