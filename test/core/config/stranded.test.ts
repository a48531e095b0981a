import { emptyConfigRows } from '../../../core/config/rows';
import { strandedConversations, strandedWarning } from '../../../core/config/stranded';
import type { ConfigRows } from '../../../core/config/types';
import { response } from '../../../db/seed/builders';

const config = (...responses: ConfigRows['responses']): ConfigRows => ({ ...emptyConfigRows(), responses });
const exact = (responseId: number, intentCode: string, stateCode: string, enabled = true) =>
  response({ responseId, intentCode, stateCode, responseType: 'EXACT', exactText: 'ok', enabled });

describe('strandedConversations (core/config/stranded.ts)', () => {
  const at = [
    { intent: 'LOAN', state: 'AWAITING_DOCS', conversations: 4 },
    { intent: 'LOAN', state: 'DONE', conversations: 2 },
    { intent: 'FAQ', state: 'IDLE', conversations: 9 },
    { intent: 'MODEL_CHOSE', state: 'WHATEVER', conversations: 1 },
  ];
  const inForce = config(exact(1, 'LOAN', 'AWAITING_DOCS'), exact(2, 'LOAN', 'DONE'), exact(3, 'FAQ', 'ANY'));

  it('names the pairs answered now and not after the change: a state renamed, a response disabled', () => {
    const next = config(exact(1, 'LOAN', 'WAITING_DOCS'), exact(2, 'LOAN', 'DONE', false), exact(3, 'FAQ', 'ANY'));
    expect(strandedConversations(inForce, next, at)).toEqual([
      { intent: 'LOAN', state: 'AWAITING_DOCS', conversations: 4 },
      { intent: 'LOAN', state: 'DONE', conversations: 2 },
    ]);
  });

  it('counts ANY as answering any state, and leaves out pairs the config in force does not answer either', () => {
    const next = config(exact(1, 'LOAN', 'ANY'), exact(3, 'FAQ', 'IDLE'));
    expect(strandedConversations(inForce, next, at)).toEqual([]);
  });

  it('warns that the next turn may fail, not that it will: intent resolution runs again and may move them on', () => {
    expect(strandedWarning({ intent: 'LOAN', state: 'AWAITING_DOCS', conversations: 4 })).toBe(
      'warning: 4 conversation(s) in intent LOAN, state AWAITING_DOCS have a response now and none after this change: ' +
        'their next turn may fail with RESPONSE_MAPPING_NOT_FOUND, unless intent resolution (a classifier or the ' +
        'intent agent; skipped while the intent is locked) or a rule moves them on'
    );
  });
});
