import { INTENT_COLLISION_STATE } from '../intent/agent-decision';
import { ANY_SCOPE, normalizeScopeValue, UNKNOWN_SCOPE } from './scope';
import type { RuleRow } from './types';

/**
 * The states a config declares: each one an enabled ce_rule is scoped to or moves to with SET_STATE. Validation
 * refuses a state_code anywhere else that is not among them, so this is every state the config can act on.
 * Upper-cased, with ANY and UNKNOWN (validation accepts both as a row's scope).
 */
export function declaredStates(rules: readonly RuleRow[]): Set<string> {
  const states = new Set<string>([ANY_SCOPE, UNKNOWN_SCOPE]);
  for (const rule of rules) {
    if (!rule.enabled) continue;
    const state = normalizeScopeValue(rule.stateCode);
    if (state !== '') states.add(state);
    if (normalizeScopeValue(rule.action) === 'SET_STATE') {
      const target = normalizeScopeValue(rule.actionValue);
      if (target !== '') states.add(target);
    }
  }
  return states;
}

/** The states the engine's intent prompt itself suggests to the model (§4.3): accepted whatever the config says. */
const SUGGESTED_STATES = ['IDLE', INTENT_COLLISION_STATE];

/**
 * States an intent model may move a conversation to: the declared ones and the two the prompt suggests, never
 * ANY (a wildcard of row scopes, not a state a conversation can be in).
 */
export function modelSettableStates(rules: readonly RuleRow[]): Set<string> {
  const states = declaredStates(rules);
  states.delete(ANY_SCOPE);
  for (const state of SUGGESTED_STATES) states.add(state);
  return states;
}
