import { buildFacts } from '../../../core/rules/facts';
import { evaluateJsonPathRule } from '../../../core/rules/jsonpath';
import { sessionFor } from '../../support/config-rows';

describe('JSON_PATH on the facts document (scenario 18)', () => {
  const context = {
    customerId: '1',
    flag: false,
    nul: null,
    mcp: { finalAnswer: 'done' },
    state: 'CTX',
    intent: 'CTX',
  };
  const facts = (schemaComplete = false) =>
    buildFacts(
      sessionFor('x', {
        intent: 'I',
        state: 'S',
        context,
        schemaComplete,
        inputParams: { a: 1, session: { big: true } },
      }),
      {}
    );

  it.each([
    '$.customerId',
    '$.mcp.finalAnswer',
    '$.nul',
    "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
    '$[?(@.missing == null)]',
    '$[?(@.inputParams.a == 1)]',
  ])('matches %s', (path) => {
    expect(evaluateJsonPathRule(path, facts())).toBe(true);
  });

  it.each(['$.flag', '$.missing', '$[?(@.missing != null)]', 'bad((('])('does not match %s', (path) => {
    expect(evaluateJsonPathRule(path, facts())).toBe(false);
  });

  it('schemaComplete follows the session; session keys shadow context keys', () => {
    expect(evaluateJsonPathRule('$.schemaComplete', facts(false))).toBe(false);
    expect(evaluateJsonPathRule('$.schemaComplete', facts(true))).toBe(true);
    expect(facts()['state']).toBe('S');
    expect(facts()['intent']).toBe('I');
  });

  it('exposes safe input params only, and the payload when one is set', () => {
    const f = facts();
    expect(f['inputParams']).toEqual({ a: 1, droppedSystemPromptVars: ['session'] });
    const withPayload = buildFacts(sessionFor('x', { payload: { type: 'TEXT', value: 'hi' } }), {});
    expect(withPayload['payload']).toEqual({ text: 'hi' });
  });
});
