import { isReservedResponseState } from '../../response/reserved';
import { ANY_SCOPE, isAnyScope, normalizeScopeValue, scopeValueMatches } from '../scope';
import type { ValidationContext } from './context';

const NOT_FOUND = 'fails with RESPONSE_MAPPING_NOT_FOUND';

/**
 * Every turn ends in ResponseResolutionStep, which fails the turn when no enabled ce_response admits the session's
 * intent and state, `ANY` admitting any (core/response/select.ts). An enabled intent that no response admits in any
 * state fails every turn that resolves to it; so does a state a rule or a classifier puts the session in, for that
 * row's intent (any intent for an ANY row), when no response admits the pair and no rule of that state moves the
 * session on (a classifier's UNKNOWN is often a waypoint). Warnings, not violations: whether a rule's match holds
 * cannot be told here.
 */
export function checkReachableResponses(ctx: ValidationContext): void {
  if (!ctx.has('responses')) return;
  // Reserved states (AWAITING_APPROVAL, TURN_FAILED…) are said outside a turn: they answer no turn.
  const responses = ctx.rows.responses.filter((r) => r.enabled && !isReservedResponseState(r.stateCode));
  const answered = (intent: string, state: string) =>
    responses.some(
      (r) => (intent === ANY_SCOPE || scopeValueMatches(r.intentCode, intent)) && scopeValueMatches(r.stateCode, state)
    );
  const silent = new Set<string>();
  for (const intent of ctx.rows.intents) {
    const code = normalizeScopeValue(intent.intentCode);
    if (!intent.enabled || code === '' || responses.some((r) => scopeValueMatches(r.intentCode, code))) continue;
    silent.add(code);
    ctx.sink.warning(
      'ce_intent',
      intent.intentCode,
      `no enabled ce_response has intent_code ${code} or ANY: a turn that resolves to it ${NOT_FOUND}`
    );
  }
  // Without the rules (a partial tree) a state's way on is unknown.
  for (const entry of ctx.has('rules') ? statesEntered(ctx) : []) {
    if (silent.has(entry.intent) || answered(entry.intent, entry.state) || leftByRule(ctx, entry)) continue;
    const none =
      entry.intent === ANY_SCOPE
        ? `no enabled ce_response has state_code ${entry.state} or ANY`
        : `no enabled ce_response admits intent ${entry.intent} in state ${entry.state} (ANY admitting any)`;
    ctx.sink.warning(
      entry.table,
      entry.id,
      `${entry.how} ${entry.state}, and ${none}: a turn that ends there ${NOT_FOUND}`
    );
  }
}

interface Entry {
  intent: string;
  state: string;
  table: string;
  id: number;
  how: string;
}

/** Each (intent, state) a session can be put in, with the first row that puts it there: a SET_STATE rule or a classifier. */
function statesEntered(ctx: ValidationContext): Entry[] {
  const entries = new Map<string, Entry>();
  const enter = (intentCode: string, stateCode: string | null, where: Omit<Entry, 'intent' | 'state'>) => {
    const intent = normalizeScopeValue(intentCode);
    const state = normalizeScopeValue(stateCode);
    const key = `${intent}\u0000${state}`;
    if (intent !== '' && state !== '' && state !== ANY_SCOPE && !entries.has(key))
      entries.set(key, { intent, state, ...where });
  };
  for (const rule of ctx.rows.rules) {
    if (rule.enabled && normalizeScopeValue(rule.action) === 'SET_STATE') {
      enter(rule.intentCode, rule.actionValue, { table: 'ce_rule', id: rule.ruleId, how: 'SET_STATE sets' });
    }
  }
  for (const c of ctx.rows.classifiers) {
    if (c.enabled)
      enter(c.intentCode, c.stateCode, {
        table: 'ce_intent_classifier',
        id: c.classifierId,
        how: 'the classifier sets',
      });
  }
  return [...entries.values()];
}

/** A SET_STATE rule written for this very state (not ANY), of its intent or ANY: the state is a waypoint. */
function leftByRule(ctx: ValidationContext, entry: Entry): boolean {
  return ctx.rows.rules.some(
    (r) =>
      r.enabled &&
      normalizeScopeValue(r.action) === 'SET_STATE' &&
      normalizeScopeValue(r.stateCode) === entry.state &&
      (entry.intent === ANY_SCOPE ? isAnyScope(r.intentCode) : scopeValueMatches(r.intentCode, entry.intent))
  );
}
