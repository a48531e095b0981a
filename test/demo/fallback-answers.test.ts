import {
  answerDialogueAct,
  answerIntent,
  answerPlan,
  answerSchema,
  guidance,
  type FallbackTurn,
} from '../../demo/fallback-model';
import { packConfigRows, SEED_PACKS } from '../../db/seed';

const rows = packConfigRows(SEED_PACKS);
const turn = (extra: Partial<FallbackTurn>): FallbackTurn => ({
  kind: 'INTENT',
  intent: 'UNKNOWN',
  state: 'UNKNOWN',
  userInput: '',
  prompt: '',
  schema: null,
  ...extra,
});

/** Issue 14 item 9: the keyless demo's deterministic fallback answers, call kind by call kind. */
describe('demo fallback model', () => {
  it('INTENT: keyword overlap with the loaded intents; the entry state of a new intent, the current one otherwise', () => {
    const moved = answerIntent(rows, turn({ userInput: 'status of my move for connection CON1388' }));
    expect(moved).toMatchObject({ intent: 'MOVE_CONNECTIONS', state: 'MOVE_STATUS' });
    const same = answerIntent(rows, turn({ intent: 'MOVE_CONNECTIONS', state: 'COMPLETED', userInput: 'move status' }));
    expect(same).toMatchObject({ intent: 'MOVE_CONNECTIONS', state: 'COMPLETED' });
    expect(answerIntent(rows, turn({ userInput: 'qwerty' }))).toMatchObject({ intent: null, confidence: 0 });
  });

  it.each([
    ['change the amount to 20000', 'EDIT'],
    ['actually, make it 48 months', 'EDIT'],
    ['yes please, go ahead', 'AFFIRM'],
    ['no, not now', 'NEGATE'],
    ['hello, anyone there', 'GREETING'],
    ['where is my order?', 'QUESTION'],
    ['I need a loan', 'NEW_REQUEST'],
  ])('DA: %p is %s, by cue words', (userInput, act) => {
    expect(answerDialogueAct(turn({ kind: 'DA', userInput }))).toEqual({
      dialogueAct: act,
      confidence: act === 'NEW_REQUEST' ? 0.5 : 0.8,
      standaloneQuery: userInput,
    });
  });

  it('SCHEMA: fields by simple patterns after their words, null when absent', () => {
    const schema = {
      type: 'object',
      properties: {
        customerId: { type: 'string' },
        requestedAmount: { type: 'number' },
        tenureMonths: { type: 'integer' },
        city: { type: 'string' },
      },
    };
    expect(answerSchema(turn({ schema, userInput: 'Customer id 1234, amount 35,000 for 24 months.' }))).toEqual({
      customerId: '1234',
      requestedAmount: 35000,
      tenureMonths: 24,
      city: null,
    });
  });

  it('SCHEMA: a date field takes an ISO date, an amount field a sum of money, whatever words are around them', () => {
    const schema = {
      type: 'object',
      properties: {
        incident_date: { type: 'string', description: 'Date of the damage (YYYY-MM-DD)' },
        estimated_cost: { type: 'number', description: 'Repair cost, in EUR' },
        tenureMonths: { type: 'integer' },
      },
    };
    const said = 'Water damage on 2026-03-01 for policy P-1001, about 1,200.50 EUR.';
    expect(answerSchema(turn({ schema, userInput: said }))).toEqual({
      incident_date: '2026-03-01',
      estimated_cost: 1200.5,
      tenureMonths: null,
    });
    expect(answerSchema(turn({ schema, userInput: 'policy P-1001' }))).toEqual({
      incident_date: null,
      estimated_cost: null,
      tenureMonths: null,
    });
  });

  it('PLAN: a confirmed request ("yes") takes the id its prompt names by the parameter\'s words', () => {
    const confirmed = turn({
      kind: 'PLAN',
      intent: 'MOVE_CONNECTIONS',
      state: 'MOVE_STATUS',
      userInput: 'yes',
      prompt: 'Look up the connection with the tool.\nRequest: connection CON1388, moved 2026-03-01.',
    });
    expect(answerPlan(rows, confirmed)).toMatchObject({ action: 'CALL_TOOL', args: { connection_id: 'CON1388' } });
  });

  it('PLAN: calls an in-scope read-only tool with the id in the message, then answers from its result', () => {
    const first = answerPlan(
      rows,
      turn({ kind: 'PLAN', intent: 'MOVE_CONNECTIONS', state: 'MOVE_STATUS', userInput: 'status of CON1388?' })
    );
    expect(first).toMatchObject({
      action: 'CALL_TOOL',
      tool_code: 'postgres.move_status',
      args: { connection_id: 'CON1388' },
    });
    const observed = answerPlan(
      rows,
      turn({
        kind: 'PLAN',
        intent: 'MOVE_CONNECTIONS',
        state: 'MOVE_STATUS',
        prompt:
          'Observations: [{"toolCode":"postgres.move_status","args":{},"status":"SUCCESS","result":{"rows":[{"status":"MOVED"}],"rowCount":1}}]',
      })
    );
    expect(observed).toMatchObject({ action: 'ANSWER', answer: 'I found: status MOVED.' });
    const none = answerPlan(
      rows,
      turn({
        kind: 'PLAN',
        prompt: 'Observations: [{"toolCode":"postgres.move_status","result":{"rowCount":0,"rowsPreview":[]}}]',
      })
    );
    expect(none).toMatchObject({ action: 'ANSWER', answer: 'I found no matching records.' });
    const nothing = answerPlan(rows, turn({ kind: 'PLAN', intent: 'FAQ', state: 'IDLE', userInput: 'hm' }));
    expect(nothing).toMatchObject({ action: 'ANSWER', answer: guidance(rows) });
    expect(guidance(rows)).toMatch(/You can say, for example/);
  });
});
