import { DIRECT_TOOL_OUTPUT, readsPlannerOutput, turnOutputRead } from '../../mcp/turn-output';
import { isReservedResponseState } from '../../response/reserved';
import { evaluateRuleMatch } from '../../rules/match';
import { isRulePhase, runsBeforeDirectTool, runsBeforePlanner, type RulePhase } from '../../rules/phase';
import { authoredVariableParts, placeholderIn, type TemplateVariablePart } from '../../templates';
import { ANY_SCOPE, normalizeScopeValue, scopeValueMatches, scopeValuesOverlap } from '../scope';
import type { ResponseRow, RuleRow } from '../types';
import type { ValidationContext } from './context';

/** Messages a rule that moves every message on must match: none, a word, punctuation, a follow-up. */
const PROBES = ['', 'ok', '?', 'And connection USPSC003BA100SA277CON1128?'];

interface Scope {
  intent: string;
  state: string;
}

/** A strictly rendered column that reads the planner's output without a default, and where it is. */
interface Reader {
  table: string;
  id: number;
  column: string;
  part: TemplateVariablePart;
  scope: Scope;
}

/** The row's own value, or the other row's where the first is ANY. */
function narrower(a: string | null, b: string | null): string {
  const x = normalizeScopeValue(a);
  return x === ANY_SCOPE ? normalizeScopeValue(b) : x;
}

/** The first placeholder of `text` without a default that `reads` accepts. */
function firstRead(
  text: string | null,
  reads: (part: TemplateVariablePart) => boolean
): TemplateVariablePart | undefined {
  try {
    return authoredVariableParts(text ?? '').find((p) => p.fallback === undefined && reads(p));
  } catch {
    return undefined; // a malformed template is a violation of its own (prompt-checks.ts, rule-checks.ts)
  }
}

/** The derivation hint of a DERIVED response and the prompts of the templates it may render. */
function readersOf(ctx: ValidationContext, r: ResponseRow): Reader[] {
  const readers: Reader[] = [];
  const add = (table: string, id: number, column: string, text: string | null, scope: Scope) => {
    const part = firstRead(text, (p) => readsPlannerOutput(p.path));
    if (part) readers.push({ table, id, column, part, scope });
  };
  add('ce_response', r.responseId, 'derivation_hint', r.derivationHint, {
    intent: normalizeScopeValue(r.intentCode),
    state: normalizeScopeValue(r.stateCode),
  });
  const format = normalizeScopeValue(r.outputFormat);
  for (const t of ctx.rows.promptTemplates) {
    if (!t.enabled || normalizeScopeValue(t.outputFormat) !== format) continue;
    if (!scopeValuesOverlap(t.intentCode, r.intentCode) || !scopeValuesOverlap(t.stateCode, r.stateCode)) continue;
    const scope = { intent: narrower(r.intentCode, t.intentCode), state: narrower(r.stateCode, t.stateCode) };
    add('ce_prompt_template', t.templateId, 'system_prompt', t.systemPrompt, scope);
    add('ce_prompt_template', t.templateId, 'user_prompt', t.userPrompt, scope);
  }
  return readers;
}

const admits = (row: { intentCode: string | null; stateCode: string | null }, s: Scope) =>
  scopeValueMatches(row.intentCode, s.intent) && scopeValueMatches(row.stateCode, s.state);

/** A PRE_AGENT_MCP SET_STATE rule of the state that moves every message elsewhere before the planner is decided. */
function movesEveryMessageOn(rule: RuleRow, s: Scope): boolean {
  const target = normalizeScopeValue(rule.actionValue);
  if (!rule.enabled || rule.phase !== 'PRE_AGENT_MCP' || !admits(rule, s)) return false;
  if (normalizeScopeValue(rule.action) !== 'SET_STATE' || target === '' || target === s.state) return false;
  return PROBES.every((text) => evaluateRuleMatch(rule, { userText: text, facts: {}, context: {} }).matched);
}

/**
 * A DERIVED reply's prompt (or derivation hint) that reads the planner's output (`{{context.mcp.finalAnswer}}`,
 * `observations`, …) without a default fails a turn that renders it without the planner with
 * UNRESOLVED_PROMPT_VARIABLE: McpPrepare clears an earlier turn's answer rather than let it be repeated
 * (docs/migrating-from-java.md). Which turns skip the planner cannot be told exactly here; conservatively, a state
 * with no enabled ce_mcp_tool in scope is reached without it (a later message after the POST_AGENT_MCP rule moved
 * the turn there), unless a PRE_AGENT_MCP SET_STATE rule of that state moves every message on first. A state with
 * tools can be too (a greeting, a dialogue act, an incomplete schema skip the planner): a default covers every case.
 */
export function checkPlannerAnswerPrompts(ctx: ValidationContext): void {
  if (!(['responses', 'promptTemplates', 'mcpTools', 'rules'] as const).every((table) => ctx.has(table))) return;
  const reported = new Set<string>();
  for (const r of ctx.rows.responses) {
    if (!r.enabled || normalizeScopeValue(r.responseType) !== 'DERIVED' || isReservedResponseState(r.stateCode))
      continue;
    for (const reader of readersOf(ctx, r)) {
      const key = `${reader.table}:${reader.id}:${reader.column}:${reader.scope.intent}:${reader.scope.state}`;
      if (reported.has(key) || !reachedWithoutPlanner(ctx, reader.scope)) continue;
      reported.add(key);
      ctx.sink.warning(reader.table, reader.id, withoutPlannerWarning(reader, r));
    }
  }
}

function reachedWithoutPlanner(ctx: ValidationContext, s: Scope): boolean {
  if (ctx.rows.mcpTools.some((tool) => tool.enabled && admits(tool, s))) return false;
  return !ctx.rows.rules.some((rule) => movesEveryMessageOn(rule, s));
}

function withoutPlannerWarning(reader: Reader, r: ResponseRow): string {
  const { intent, state } = reader.scope;
  const withDefault = placeholderIn(reader.part.syntax, `${reader.part.path.text} ?: ''`);
  return (
    `${reader.column} reads ${reader.part.raw}, which DERIVED ce_response[${r.responseId}] renders in state ${state} ` +
    `(intent ${intent}); no enabled ce_mcp_tool is in scope there, so a later message that stays in ${state} is ` +
    `answered without the planner and fails with UNRESOLVED_PROMPT_VARIABLE (an earlier turn's answer is cleared, ` +
    `never repeated). Move such turns back to the planner's state with a PRE_AGENT_MCP SET_STATE rule for state ` +
    `${state} that matches every message (rule_type REGEX, match_pattern .*), as the bundled packs do, or write ${withDefault}`
  );
}

/** Whether a rule of `phase` sees only an earlier turn's value of what `part` reads (short-circuit.ts hides it). */
function earlierOnly(part: TemplateVariablePart, phase: RulePhase): boolean {
  const key = turnOutputRead(part.path);
  if (key === null) return false;
  return DIRECT_TOOL_OUTPUT.has(key) ? runsBeforeDirectTool(phase) : runsBeforePlanner(phase);
}

/**
 * A SHORT_CIRCUIT of a phase before this turn's planner (or direct tool) never answers with their output: what it
 * sees there is an earlier turn's, which is not repeated (core/rules/actions/short-circuit.ts). With an empty
 * action_value it never answers; with one reading that output (no default) every turn it fires in fails.
 */
export function checkEarlyShortCircuits(ctx: ValidationContext): void {
  for (const rule of ctx.rows.rules) {
    if (!rule.enabled || normalizeScopeValue(rule.action) !== 'SHORT_CIRCUIT' || !isRulePhase(rule.phase)) continue;
    const phase = rule.phase;
    const later = 'move it to POST_AGENT_MCP or PRE_RESPONSE_RESOLUTION';
    if ((rule.actionValue ?? '').trim() === '' && runsBeforePlanner(phase)) {
      ctx.sink.warning(
        'ce_rule',
        rule.ruleId,
        `SHORT_CIRCUIT with an empty action_value answers with context.mcp.finalAnswer, but in ${phase}, before this ` +
          `turn's planner, the only one is an earlier turn's, which is not repeated: it never answers (SHORT_CIRCUIT ` +
          `reason EARLIER_TURN_ANSWER); give it an action_value, or ${later}`
      );
      continue;
    }
    const part = firstRead(rule.actionValue, (p) => earlierOnly(p, phase));
    if (!part) continue;
    ctx.sink.warning(
      'ce_rule',
      rule.ruleId,
      `SHORT_CIRCUIT action_value reads ${part.raw}, which in ${phase} only an earlier turn has written, and it is ` +
        `not repeated: a turn the rule answers fails with UNRESOLVED_PROMPT_VARIABLE; ${later}, or write ` +
        placeholderIn(part.syntax, `${part.path.text} ?: ''`)
    );
  }
}
