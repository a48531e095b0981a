import type { ConfigRows, ResponseRow, RuleRow } from '../../../core/config/types';
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

/** Every message in state `from` moves to `to` when `phase` runs. */
function everyMessageRule(
  ruleId: number,
  intentCode: string,
  from: string,
  phase: RuleRow['phase'],
  to: string,
  description: string
): RuleRow {
  return rule({
    ruleId,
    intentCode,
    stateCode: from,
    phase,
    ruleType: 'REGEX',
    matchPattern: '.*',
    action: 'SET_STATE',
    actionValue: to,
    description,
  });
}

/**
 * PRE_AGENT_MCP, so only for a message arriving after a turn finished in COMPLETED: the turn moves to `state` and is
 * answered from its own work, never with the last turn's planner answer (seed "stale move ID bug").
 */
export function afterCompletedRule(ruleId: number, intentCode: string, state: string, description: string): RuleRow {
  return everyMessageRule(ruleId, intentCode, 'COMPLETED', 'PRE_AGENT_MCP', state, description);
}

/**
 * POST_DIALOGUE_ACT, for a state a turn ends in before PRE_AGENT_MCP runs (a direct tool's POST_TOOL_EXECUTION state,
 * ACKNOWLEDGED): the next message moves to `to` before intent resolution, as afterCompletedRule's does after COMPLETED.
 */
export function nextMessageRule(ruleId: number, intentCode: string, from: string, to: string, description: string) {
  return everyMessageRule(ruleId, intentCode, from, 'POST_DIALOGUE_ACT', to, description);
}

/** Words that only acknowledge an answer; any run of them, with commas and a closing "!" or ".", is the whole message. */
const ACKNOWLEDGEMENT_WORDS = 'ok|okay|thanks|thank you|thx|great|cool|perfect|nice|awesome|got it|alright|cheers';
export const ACKNOWLEDGEMENT_PATTERN =
  `(?i)^\\s*(${ACKNOWLEDGEMENT_WORDS})` + `([\\s,.!]+(${ACKNOWLEDGEMENT_WORDS}|a lot|so much|very much))*[\\s.!]*$`;
/** The state an acknowledged answer leaves the conversation in; its reply says what the user can ask next. */
export const ACKNOWLEDGED = 'ACKNOWLEDGED';

/**
 * "ok thanks" after an answer (`state`) moves to ACKNOWLEDGED before intent resolution, any tool or the planner run,
 * so it is answered by acknowledgedResponse: not by the answer's own reply, whose EXACT text may read a tool result
 * this turn does not have (TURN_OUTPUT_MISSING: the TURN_FAILED text), nor by a planner run on "thanks". Priority 200:
 * after a nextMessageRule of `state` (priority 100), which fires too (all matching rules do), so this one wins.
 */
export function acknowledgementRule(ruleId: number, intentCode: string, state: string): RuleRow {
  return rule({
    ruleId,
    intentCode,
    stateCode: state,
    phase: 'POST_DIALOGUE_ACT',
    ruleType: 'REGEX',
    matchPattern: ACKNOWLEDGEMENT_PATTERN,
    action: 'SET_STATE',
    actionValue: ACKNOWLEDGED,
    priority: 200,
    description: `An acknowledgement ("ok", "thanks") of the answer given in ${state}.`,
  });
}

/**
 * The rules of ACKNOWLEDGED: any other message goes to `to`, where one right after the answer is handled (the state the
 * answer left, or where a pack moves every message after it, afterCompletedRule), since a message nothing classifies
 * keeps the state it arrives in and would otherwise be acknowledged again; another acknowledgement stays (its rule
 * fires last).
 */
export function acknowledgedRules(ruleId: number, intentCode: string, to: string): RuleRow[] {
  const description = `A message after an acknowledgement goes to ${to}, as one after the answer does.`;
  return [
    nextMessageRule(ruleId, intentCode, ACKNOWLEDGED, to, description),
    acknowledgementRule(ruleId + 1, intentCode, ACKNOWLEDGED),
  ];
}

/** The reply to an acknowledgement (acknowledgementRule): no tool output, and an example of what to ask next. */
export function acknowledgedResponse(responseId: number, intentCode: string, nextRequest: string): ResponseRow {
  return response({
    responseId,
    intentCode,
    stateCode: ACKNOWLEDGED,
    responseType: 'EXACT',
    exactText: `Glad I could help. ${nextRequest}`,
    description: 'The user acknowledged the answer; a message nothing else handles in this state gets it too.',
  });
}
