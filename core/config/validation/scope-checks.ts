import { isReservedResponseState } from '../../response/reserved';
import { ANY_SCOPE, UNKNOWN_SCOPE, normalizeScopeValue } from '../scope';
import { isBlank, repeatedKeys, type ValidationContext } from './context';

interface ScopedEntry {
  id: number;
  intentCode: string | null;
  stateCode: string | null;
  enabled: boolean;
}

function entries<T extends Omit<ScopedEntry, 'id'>>(rows: readonly T[], idOf: (row: T) => number): ScopedEntry[] {
  return rows.map((row) => ({
    id: idOf(row),
    intentCode: row.intentCode,
    stateCode: row.stateCode,
    enabled: row.enabled,
  }));
}

/**
 * D12/§11.2 static scope validation over every enabled row of the scoped tables: blank scope is a
 * violation; an intent missing from ce_intent is a violation, one that is only disabled a warning
 * (scenario 21); a state no enabled rule uses or sets is a violation. ANY and UNKNOWN always pass, and
 * so do the reserved ce_response states (AWAITING_APPROVAL, TURN_FAILED).
 */
export function checkScopes(ctx: ValidationContext): void {
  const r = ctx.rows;
  const tables: [string, ScopedEntry[]][] = [
    ['ce_rule', entries(r.rules, (x) => x.ruleId)],
    ['ce_pending_action', entries(r.pendingActions, (x) => x.pendingActionId)],
    ['ce_prompt_template', entries(r.promptTemplates, (x) => x.templateId)],
    ['ce_response', entries(r.responses, (x) => x.responseId)],
    ['ce_output_schema', entries(r.outputSchemas, (x) => x.schemaId)],
    ['ce_mcp_tool', entries(r.mcpTools, (x) => x.toolId)],
    ['ce_mcp_planner', entries(r.mcpPlanners, (x) => x.plannerId)],
    ['ce_intent_classifier', entries(r.classifiers, (x) => x.classifierId)],
    ['ce_verbose', entries(r.verboses, (x) => x.verboseId)],
  ];
  for (const [table, rows] of tables) {
    for (const row of rows) {
      if (!row.enabled) continue;
      checkIntent(ctx, table, row.id, row.intentCode, 'intent_code');
      if (table === 'ce_response' && isReservedResponseState(row.stateCode)) continue;
      checkState(ctx, table, row.id, row.stateCode);
    }
  }
  checkIntentRows(ctx);
}

/** Shared with SET_INTENT action values, which name an intent the same way. */
export function checkIntent(
  ctx: ValidationContext,
  table: string,
  id: number,
  value: string | null,
  column: string
): void {
  if (isBlank(value)) {
    ctx.sink.violation(table, id, `${column} is null/blank`);
    return;
  }
  const code = normalizeScopeValue(value);
  if (code === ANY_SCOPE || code === UNKNOWN_SCOPE || !ctx.has('intents')) return;
  const intent = ctx.intents.get(code);
  if (!intent) ctx.sink.violation(table, id, `invalid ${column}=${code} (not defined in ce_intent)`);
  else if (!intent.enabled)
    ctx.sink.warning(table, id, `${column}=${code} refers to a disabled ce_intent; the row is inactive`);
}

function checkState(ctx: ValidationContext, table: string, id: number, value: string | null): void {
  if (isBlank(value)) {
    ctx.sink.violation(table, id, 'state_code is null/blank');
    return;
  }
  const state = normalizeScopeValue(value);
  if (ctx.has('rules') && !ctx.allowedStates.has(state)) {
    ctx.sink.violation(
      table,
      id,
      `invalid state_code=${state} (no enabled ce_rule uses it as state_code or sets it with SET_STATE)`
    );
  }
}

function checkIntentRows(ctx: ValidationContext): void {
  for (const intent of ctx.rows.intents) {
    if (isBlank(intent.intentCode)) ctx.sink.violation('ce_intent', intent.intentCode, 'intent_code is null/blank');
    else if (normalizeScopeValue(intent.intentCode) === ANY_SCOPE) {
      ctx.sink.violation('ce_intent', intent.intentCode, 'ANY is a wildcard and cannot be defined as an intent');
    } else if (intent.intentCode !== intent.intentCode.trim()) {
      const stored = JSON.stringify(intent.intentCode.trim().toUpperCase());
      ctx.sink.warning(
        'ce_intent',
        intent.intentCode,
        `intent codes are matched trimmed and upper-cased; store it as ${stored}`
      );
    } else if (intent.intentCode !== intent.intentCode.toUpperCase()) {
      ctx.sink.warning('ce_intent', intent.intentCode, 'intent codes are matched upper-cased; store them upper-case');
    }
  }
  // The engine knows an intent by its code trimmed and upper-cased: of two enabled rows FAQ and faq, every
  // scoped row, classifier and agent answer reaches the same one, and the other's description and priority are lost.
  const enabled = (i: { intentCode: string; enabled: boolean }) =>
    i.enabled && !isBlank(i.intentCode) ? normalizeScopeValue(i.intentCode) : null;
  for (const [first, repeat] of repeatedKeys(ctx.rows.intents, enabled)) {
    ctx.sink.violation(
      'ce_intent',
      repeat.intentCode,
      `intent_code ${repeat.intentCode} is the same intent as ${first.intentCode} (codes are matched trimmed and upper-cased): keep one row`
    );
  }
}
