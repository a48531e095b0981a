import { LLM_DEMO_META_FIELD } from '../../core/llm';
import { answerDialogueAct, answerIntent, answerReply } from '../../demo/fallback-model';
import { answerPlan } from '../../demo/fallback-plan';
import { answerSchema } from '../../demo/fallback-schema';
import { guidance, turnOf, type FallbackTurn } from '../../demo/fallback-turn';
import { packConfigRows, SEED_PACKS } from '../../db/seed';

const rows = packConfigRows(SEED_PACKS);
const turn = (extra: Partial<FallbackTurn>): FallbackTurn => ({
  kind: 'INTENT',
  intent: 'UNKNOWN',
  state: 'UNKNOWN',
  userInput: '',
  prompt: '',
  schema: null,
  missingFields: [],
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

  describe('off the script (outsider report item 2)', () => {
    const LOAN_SCHEMA = {
      type: 'object',
      properties: {
        customerId: { type: 'string', description: 'Customer id, e.g. 1234' },
        requestedAmount: { type: 'number', description: 'Requested loan amount' },
        tenureMonths: { type: 'integer', description: 'Loan tenure in months' },
      },
    };
    const loanFields = (userInput: string, missingFields: string[] = []) =>
      answerSchema(turn({ kind: 'SCHEMA', schema: LOAN_SCHEMA, userInput, missingFields }));
    const SEED = 'I need a loan for my customer. Customer id 1234, 35000, 24 months.';

    it.each([SEED, SEED.toUpperCase(), 'i need a loan for my customer. customer id 1234, 35,000, 24 months'])(
      'SCHEMA: a number field takes the one number no other field took, whatever the case: %p',
      (userInput) => {
        expect(loanFields(userInput)).toEqual({ customerId: '1234', requestedAmount: 35000, tenureMonths: 24 });
      }
    );

    it.each([
      ['two numbers left', 'Customer id 1234, 35000 or 40000, 24 months.', { tenureMonths: 24 }],
      ['two number fields left', 'Customer id 1234, 35000.', {}],
      ['"350k" is not 350', 'Customer 1234, amount 350k, 24 months.', { tenureMonths: 24 }],
      ['an id inside a word', 'Customer id 1234, ref AB35000, 24 months.', { tenureMonths: 24 }],
    ])('SCHEMA: nothing guessed with %s', (_, userInput, fields) => {
      expect(loanFields(userInput)).toEqual({
        customerId: '1234',
        requestedAmount: null,
        tenureMonths: null,
        ...fields,
      });
    });

    it('SCHEMA: in a collecting turn the number goes to the one field still missing', () => {
      expect(loanFields('35000', ['requestedAmount'])).toMatchObject({ requestedAmount: 35000, tenureMonths: null });
      expect(loanFields('35000', ['requestedAmount', 'tenureMonths'])).toMatchObject({ requestedAmount: null });
      expect(loanFields('24.5', ['tenureMonths'])).toMatchObject({ tenureMonths: null });
    });

    it.each([
      ['1 year 6 months', ['tenureMonths'], {}],
      ['tenure 1 year and 6 months', ['tenureMonths'], {}],
      ['tenure: 2 years', ['tenureMonths'], {}],
      ['3 weeks', ['tenureMonths'], {}],
      ['tenure 18 months', ['tenureMonths'], { tenureMonths: 18 }],
      ['Customer id 1234, 35000, 1 year 6 months.', [], { customerId: '1234', requestedAmount: 35000 }],
      ['35000 for 2 years', ['requestedAmount', 'tenureMonths'], { requestedAmount: 35000 }],
      ['1 year 6 months', ['requestedAmount'], {}],
    ])(
      'SCHEMA: a month field takes one number of months, no other duration (nor a number of it): %p',
      (userInput, missing, fields) => {
        expect(loanFields(userInput, missing)).toEqual({
          customerId: null,
          requestedAmount: null,
          tenureMonths: null,
          ...fields,
        });
      }
    );

    it.each([
      'and what about CON1388?',
      'What is the status of my move for connection USPSC003BA100SA277CON1388',
      'a loan for my customer for a house',
    ])('SCHEMA: an id field takes no id its words do not name: %p', (userInput) => {
      expect(loanFields(userInput).customerId).toBeNull();
    });

    it('SCHEMA: an id its letters abbreviate the field by is still taken unnamed', () => {
      const schema = { type: 'object', properties: { order_id: { type: 'string' }, customerId: { type: 'string' } } };
      expect(answerSchema(turn({ schema, userInput: 'ORD-7017 is late, C-77 asked' }))).toEqual({
        order_id: 'ORD-7017',
        customerId: 'C-77',
      });
    });

    const orderPlan = (userInput: string) =>
      answerPlan(rows, turn({ kind: 'PLAN', intent: 'ORDER_DIAGNOSTICS', state: 'ANALYZE', userInput }));

    it('PLAN: calls an in-scope read-only HTTP tool with an id that fits its input_schema', () => {
      expect(orderPlan('Check order ORD-9999 status.')).toEqual({
        action: 'CALL_TOOL',
        tool_code: 'mock.order.status',
        args: { orderId: 'ORD-9999' },
        answer: null,
        operation_tag: null,
      });
      expect(orderPlan('CON1388 and order ORD-12')).toMatchObject({ args: { orderId: 'ORD-12' } });
      expect(orderPlan('Check order ORDER-9999 status.')).toMatchObject({ action: 'ANSWER', answer: guidance(rows) });
    });

    it('PLAN: never calls a write tool, nor one whose argument the id does not fit', () => {
      const loan = (userInput: string, prompt = '') =>
        answerPlan(
          rows,
          turn({ kind: 'PLAN', intent: 'LOAN_APPLICATION', state: 'PROCESS_APPLICATION', userInput, prompt })
        );
      expect(loan('yes', 'Application: customerId C-77, requestedAmount 5, tenureMonths 2.')).toMatchObject({
        action: 'ANSWER',
      });
    });

    it('RESP_TEXT: asks for the missing fields by name, else repeats the planner answer, else guidance', () => {
      const reply = (extra: Partial<FallbackTurn>) => answerReply(rows, turn({ kind: 'RESP_TEXT', ...extra }));
      expect(reply({ missingFields: ['customerId', 'requestedAmount', 'tenureMonths'] })).toBe(
        'Please tell me the customerId, requestedAmount and tenureMonths.'
      );
      expect(reply({ missingFields: ['tenureMonths'] })).toBe('Please tell me the tenureMonths.');
      expect(reply({ prompt: 'Tool results: {"mcp":{"finalAnswer":"I found: status \\"SUBMITTED\\"."}}' })).toBe(
        'I found: status "SUBMITTED".'
      );
      expect(reply({ prompt: 'Tool results: {"mcp":{"finalAnswer":null}}' })).toBe(guidance(rows));
    });

    it("reads the engine's meta from the body, each field only as the type it should have", () => {
      const request = (meta: unknown) =>
        turnOf({
          kind: 'RESP_TEXT',
          system: '',
          userText: 'the prompt',
          headers: {},
          body: meta === undefined ? {} : { [LLM_DEMO_META_FIELD]: meta },
        } as unknown as Parameters<typeof turnOf>[0]);
      const said = 'あ'.repeat(2730);
      expect(
        request({ intent: 'LOAN', state: 'COLLECT', userInput: said, missingFields: ['requestedAmount', 7] })
      ).toMatchObject({ intent: 'LOAN', state: 'COLLECT', userInput: said, missingFields: ['requestedAmount'] });
      expect(request(undefined)).toMatchObject({ intent: 'UNKNOWN', userInput: 'the prompt', missingFields: [] });
      expect(request({ intent: 3, userInput: ['x'], missingFields: 'a' })).toMatchObject({
        intent: 'UNKNOWN',
        userInput: 'the prompt',
        missingFields: [],
      });
    });
  });
});
