import { classifier, intent, response, rule } from '../builders';
import type { SeedPack } from '../types';
import { acknowledgedResponse, acknowledgedRules, acknowledgementRule, sharedRows } from './shared';

/**
 * §12.1 variant B (classifier, no MCP) on the §14 BASE config: an EXACT answer to the zapper
 * move question, greetings, and the UNKNOWN fallback; an acknowledgement such as "ok thanks" is answered by
 * response 11 (rule 11), not with the answer again, and a message after it is handled as one after the answer
 * (rules 12, 13). Ids 10–19.
 */
export const faqPack: SeedPack = {
  name: 'faq',
  description: 'FAQ answered by an EXACT response (no tools), plus greeting and fallback.',
  rows: {
    intents: [
      ...(sharedRows.intents ?? []),
      intent({
        intentCode: 'FAQ',
        description: 'General questions about what the service supports, answered from configured text.',
        priority: 10,
        displayName: 'FAQ',
        llmHint: 'Questions such as "Can I move my connections within zapper?"',
      }),
    ],
    classifiers: [
      ...(sharedRows.classifiers ?? []),
      classifier({
        classifierId: 10,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        // Precise on purpose: "what is the status of my move…" belongs to MOVE_CONNECTIONS.
        pattern: '(?i)^\\s*(can i|how do i|how can i)\\s+(move|transfer)\\b',
        priority: 20,
        description: 'Questions about moving or transferring connections.',
      }),
    ],
    rules: [
      ...(sharedRows.rules ?? []),
      rule({
        ruleId: 10,
        intentCode: 'FAQ',
        stateCode: 'ANY',
        phase: 'PRE_RESPONSE_RESOLUTION',
        ruleType: 'REGEX',
        matchPattern: '(?i)\\b(reset|start over)\\b',
        action: 'SET_STATE',
        actionValue: 'IDLE',
        description: 'FAQ always answers from IDLE.',
      }),
      acknowledgementRule(11, 'FAQ', 'IDLE'),
      ...acknowledgedRules(12, 'FAQ', 'IDLE'),
    ],
    responses: [
      ...(sharedRows.responses ?? []),
      response({
        responseId: 10,
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        responseType: 'EXACT',
        exactText: 'Yes, internal account moves are supported.',
        description: 'Answer to the zapper move question.',
      }),
      acknowledgedResponse(11, 'FAQ', 'Anything else? For example: "Can I move my connections within zapper?"'),
    ],
  },
  business: [],
  utterances: ['hi', 'Can I move my connections within zapper?'],
};
