import { isKnownPhase } from '../../rules/phase';
import { checkJsonPath } from '../../rules/jsonpath';
import { checkUserRegex } from '../../text/regex';
import { ANY_SCOPE, normalizeScopeValue } from '../scope';
import type { RuleRow } from '../types';
import { RULE_ACTIONS, RULE_TYPES, oneOf } from '../vocabulary';
import {
  isParseError,
  parseSetDialogueActValue,
  parseSetJsonValue,
  parseSetTaskValue,
  setInputParamKeys,
  type Parsed,
} from './action-values';
import { isBlank, type ValidationContext } from './context';
import { checkTemplateText, type TemplateVocabulary } from './prompt-checks';
import { checkIntent } from './scope-checks';
import { warnTaskInCode } from './task-checks';

/** How many rules ruleCheckSteps checks per step: compiling their patterns takes about a tenth of a second. */
export const RULES_PER_STEP = 500;

/** ce_rule: phase (legacy names accepted, D3), rule type, pattern, action and its value (P5). */
export function checkRules(ctx: ValidationContext, vocab: TemplateVocabulary): void {
  for (const step of ruleCheckSteps(ctx, vocab)) void step;
}

/**
 * checkRules in steps of RULES_PER_STEP rules (compiling 3,000 rules' patterns takes about half a second), for
 * validateConfigPausing to pause between. The same findings, in the same order.
 */
export function* ruleCheckSteps(ctx: ValidationContext, vocab: TemplateVocabulary): Generator<void> {
  for (const [at, rule] of ctx.rows.rules.entries()) {
    if (at > 0 && at % RULES_PER_STEP === 0) yield;
    if (!rule.enabled) continue;
    const phase = rule.dbPhase ?? rule.phase;
    if (!isBlank(phase) && !isKnownPhase(phase)) {
      ctx.sink.violation('ce_rule', rule.ruleId, `unknown phase "${phase}"`);
    }
    checkMatch(ctx, rule);
    checkAction(ctx, vocab, rule);
  }
}

function checkMatch(ctx: ValidationContext, rule: RuleRow): void {
  const type = oneOf(RULE_TYPES, rule.ruleType);
  if (!type) {
    ctx.sink.violation(
      'ce_rule',
      rule.ruleId,
      `unknown rule_type "${rule.ruleType}" (known: ${RULE_TYPES.join(', ')})`
    );
    return;
  }
  if (isBlank(rule.matchPattern)) {
    ctx.sink.violation('ce_rule', rule.ruleId, 'match_pattern is blank');
    return;
  }
  const reason =
    type === 'REGEX'
      ? checkUserRegex(rule.matchPattern, { ignoreCase: true })
      : type === 'EXACT'
        ? null
        : checkJsonPath(rule.matchPattern);
  if (reason !== null) ctx.sink.violation('ce_rule', rule.ruleId, `match_pattern: ${reason}`);
}

function checkAction(ctx: ValidationContext, vocab: TemplateVocabulary, rule: RuleRow): void {
  const action = oneOf(RULE_ACTIONS, rule.action);
  const fail = (reason: string) => ctx.sink.violation('ce_rule', rule.ruleId, reason);
  const report = <T>(parsed: Parsed<T>) => {
    if (isParseError(parsed)) fail(parsed.error);
  };
  switch (action) {
    case null:
      return fail(`unknown action "${rule.action}" (known: ${RULE_ACTIONS.join(', ')})`);
    case 'SET_STATE':
      if (isBlank(rule.actionValue)) return fail('SET_STATE needs the target state in action_value');
      if (normalizeScopeValue(rule.actionValue) === ANY_SCOPE) return fail('SET_STATE cannot set the wildcard ANY');
      return;
    case 'SET_INTENT':
      if (normalizeScopeValue(rule.actionValue) === ANY_SCOPE) return fail('SET_INTENT cannot set the wildcard ANY');
      return checkIntent(ctx, 'ce_rule', rule.ruleId, rule.actionValue, 'SET_INTENT action_value');
    case 'SET_INPUT_PARAM':
      return report(setInputParamKeys(rule.actionValue));
    case 'SET_JSON':
      return report(parseSetJsonValue(rule.actionValue));
    case 'SET_DIALOGUE_ACT':
      return report(parseSetDialogueActValue(rule.actionValue));
    case 'SET_TASK':
      return checkSetTask(ctx, rule);
    case 'SHORT_CIRCUIT':
      return checkTemplateText(
        ctx,
        vocab,
        {
          table: 'ce_rule',
          id: rule.ruleId,
          column: 'action_value',
          intentCode: rule.intentCode,
          reader: 'user',
          render: 'strict',
        },
        rule.actionValue
      );
    default:
      if (!isBlank(rule.actionValue) && /\s/.test((rule.actionValue as string).trim())) {
        fail(`${action} action_value must be a single input-param key (got "${rule.actionValue}")`);
      }
  }
}

function checkSetTask(ctx: ValidationContext, rule: RuleRow): void {
  const parsed = parseSetTaskValue(rule.actionValue);
  if (isParseError(parsed)) return ctx.sink.violation('ce_rule', rule.ruleId, parsed.error);
  warnTaskInCode(
    ctx,
    { table: 'ce_rule', id: rule.ruleId },
    { name: parsed.bean, methods: parsed.methods, withoutIt: 'the rule audits each method as MISSING and does nothing' }
  );
}
