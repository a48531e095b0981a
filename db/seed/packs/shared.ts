import type { ConfigRows, RuleRow } from '../../../core/config/types';
import { classifier, intent, response, rule } from '../builders';

/**
 * Rows every pack shares (the §14 BASE config minus FAQ): GREETING and UNKNOWN with one
 * definition, so packs can be seeded in any combination without conflicting. Ids 1–9 are reserved
 * for these rows.
 */
export const GREETING_INTENT = intent({
  intentCode: 'GREETING',
  description: 'The user greets the assistant without asking for anything yet.',
  priority: 15,
  displayName: 'Greeting',
  llmHint: 'Hi, hello, good morning and similar openers with no request.',
});

export const UNKNOWN_INTENT = intent({
  intentCode: 'UNKNOWN',
  description: 'Fallback when no other intent applies.',
  priority: 999,
  displayName: 'Unknown',
});

export const sharedRows: Partial<ConfigRows> = {
  intents: [GREETING_INTENT, UNKNOWN_INTENT],
  classifiers: [
    classifier({
      classifierId: 1,
      intentCode: 'GREETING',
      stateCode: 'IDLE',
      ruleType: 'REGEX',
      pattern: '(?i)^(hi|hello)\\b',
      priority: 10,
      description: 'Greeting at the start of the message.',
    }),
  ],
  rules: [
    rule({
      ruleId: 1,
      intentCode: 'GREETING',
      stateCode: 'ANY',
      phase: 'PRE_RESPONSE_RESOLUTION',
      ruleType: 'REGEX',
      matchPattern: '(?i)\\breset\\b',
      action: 'SET_STATE',
      actionValue: 'IDLE',
      description: 'Back to IDLE on "reset"; also declares the IDLE state for scope validation.',
    }),
  ],
  responses: [
    response({
      responseId: 1,
      intentCode: 'GREETING',
      stateCode: 'IDLE',
      responseType: 'EXACT',
      exactText: 'Hi, how can I help you today?',
      description: 'Greeting reply.',
    }),
    response({
      responseId: 2,
      intentCode: 'UNKNOWN',
      stateCode: 'ANY',
      responseType: 'EXACT',
      exactText:
        'Sorry, I did not understand that. You can say, for example: "hi", ' +
        '"Can I move my connections within zapper?", ' +
        '"What is the status of my move for connection USPSC003BA100SA277CON1388", ' +
        '"I need a loan for my customer. Customer id 1234, 35000, 24 months.", ' +
        '"Check order ORD-7017 status." or "Why did request ZPR1003 fail?"',
      description: 'Fallback reply; it lists phrases the bundled demo understands.',
    }),
  ],
};

/**
 * PRE_AGENT_MCP, so only for a message arriving after a turn finished in COMPLETED: the turn moves to `state` and is
 * answered from its own work, never with the last turn's planner answer (seed "stale move ID bug").
 */
export function afterCompletedRule(ruleId: number, intentCode: string, state: string, description: string): RuleRow {
  return rule({
    ruleId,
    intentCode,
    stateCode: 'COMPLETED',
    phase: 'PRE_AGENT_MCP',
    ruleType: 'REGEX',
    matchPattern: '.*',
    action: 'SET_STATE',
    actionValue: state,
    description,
  });
}
