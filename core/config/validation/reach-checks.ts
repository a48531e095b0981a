import { isReservedResponseState } from '../../response/reserved';
import { ANY_SCOPE, normalizeScopeValue, scopeValueMatches } from '../scope';
import { surelyLeft, type EntryPoint } from './certain-exit';
import type { ValidationContext } from './context';

const NOT_FOUND = 'fails with RESPONSE_MAPPING_NOT_FOUND';

/**
 * Every turn ends in ResponseResolutionStep, which fails the turn when no enabled ce_response admits the session's
 * intent and state, `ANY` admitting any (core/response/select.ts). An enabled intent that no response admits in any
 * state fails every turn that resolves to it; so does a state a rule or a classifier puts the session in, for that
 * row's intent (any intent for an ANY row), when no response admits the pair and no rule of that state surely moves
 * the session on in the same turn (certain-exit.ts: a classifier's UNKNOWN is often such a waypoint). Each row that
 * enters the state needs its own way on: a rule that leaves only on some turns, or in a phase before the entering
 * one, leaves the others answerless. Warnings, not violations: whether the entering rule's match holds cannot be
 * told here.
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
  const warned = new Set<string>();
  for (const entry of ctx.has('rules') ? statesEntered(ctx) : []) {
    const key = `${entry.intent}\u0000${entry.state}`;
    if (warned.has(key) || silent.has(entry.intent) || answered(entry.intent, entry.state)) continue;
    if (surelyLeft(ctx.rows.rules, entry.intent, entry.state, entry.at)) continue;
    warned.add(key);
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
  at: EntryPoint;
}

/** Each row that puts a session in an (intent, state), in row order: a SET_STATE rule or a classifier. */
function statesEntered(ctx: ValidationContext): Entry[] {
  const entries: Entry[] = [];
  const enter = (intentCode: string, stateCode: string | null, where: Omit<Entry, 'intent' | 'state'>) => {
    const intent = normalizeScopeValue(intentCode);
    const state = normalizeScopeValue(stateCode);
    if (intent !== '' && state !== '' && state !== ANY_SCOPE) entries.push({ intent, state, ...where });
  };
  for (const rule of ctx.rows.rules) {
    if (rule.enabled && normalizeScopeValue(rule.action) === 'SET_STATE') {
      const at = { phase: rule.phase, ruleState: rule.stateCode ?? '' };
      enter(rule.intentCode, rule.actionValue, { table: 'ce_rule', id: rule.ruleId, how: 'SET_STATE sets', at });
    }
  }
  for (const c of ctx.rows.classifiers) {
    if (c.enabled)
      enter(c.intentCode, c.stateCode, {
        table: 'ce_intent_classifier',
        id: c.classifierId,
        how: 'the classifier sets',
        at: 'CLASSIFIER',
      });
  }
  return entries;
}
