import type { Json } from '../../../core/json';
import { checkJsonPath, evaluateJsonPathRule, firstJsonPathMatch, jsonPathValues } from '../../../core/rules/jsonpath';

// Scenario 18's facts document: context keys at the top level, then session keys (which shadow
// context keys of the same name), the whole context, and the safe input params.
const context = { customerId: '1', flag: false, nul: null, mcp: { finalAnswer: 'done' }, state: 'FROM_CONTEXT' };
const facts = (schemaComplete: boolean): Json => ({
  ...context,
  intent: 'LOAN_APPLICATION',
  state: 'CONFIRMATION',
  schemaComplete,
  context,
  inputParams: { routing_decision: 'PROCEED_CONFIRMED', correction_applied: true, n: 42 },
});

describe('evaluateJsonPathRule: scenario 18', () => {
  it.each([
    ['$.customerId', true],
    ['$.mcp.finalAnswer', true],
    ['$.nul', true],
    ["$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]", true],
    ['$[?(@.missing == null)]', true],
    ['$.flag', false],
    ['$.missing', false],
    ['$[?(@.missing != null)]', false],
    ['bad(((', false],
    ['$..finalAnswer', true],
  ])('%s → %p', (path, expected) => {
    expect(evaluateJsonPathRule(path, facts(false))).toBe(expected);
  });

  it('$.schemaComplete follows the boolean', () => {
    expect(evaluateJsonPathRule('$.schemaComplete', facts(true))).toBe(true);
    expect(evaluateJsonPathRule('$.schemaComplete', facts(false))).toBe(false);
    expect(evaluateJsonPathRule('$[?(@.schemaComplete == true)]', facts(true))).toBe(true);
    expect(evaluateJsonPathRule('$[?(@.schemaComplete == true)]', facts(false))).toBe(false);
  });

  it('$.state reflects the session value, not the context key', () => {
    expect(firstJsonPathMatch('$.state', facts(false))).toBe('CONFIRMATION');
    expect(evaluateJsonPathRule("$[?(@.state == 'CONFIRMATION')]", facts(false))).toBe(true);
  });
});

describe('evaluateJsonPathRule: seed and reference patterns', () => {
  const lifecycle = (over: Record<string, Json>): Json => ({
    context: { mcp: { finalAnswer: 'ok', lifecycle: { finished: true, error: false, outcome: 'ANSWERED', ...over } } },
  });
  it.each<[string, Json, boolean]>([
    ['$[?(@.context.mcp.lifecycle.error == true)]', lifecycle({ error: true }), true],
    ['$[?(@.context.mcp.lifecycle.error == true)]', lifecycle({}), false],
    [
      "$[?(@.context.mcp.lifecycle.finished == true && @.context.mcp.lifecycle.outcome == 'BLOCKED')]",
      lifecycle({ outcome: 'BLOCKED' }),
      true,
    ],
    [
      "$[?(@.context.mcp.lifecycle.finished == true && @.context.mcp.lifecycle.outcome == 'BLOCKED')]",
      lifecycle({}),
      false,
    ],
    ["$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]", { context: {} }, false],
    [
      "$[?(@.context.mcp.finalAnswer != null && @.context.mcp.finalAnswer != '')]",
      { context: { mcp: { finalAnswer: '' } } },
      false,
    ],
    ["$[?(@.inputParams.routing_decision == 'PROCEED_CONFIRMED')]", facts(true), true],
    ['$[?(@.inputParams.correction_applied == true)]', facts(true), true],
    [
      "$[?(@.context.mcp.toolExecution.status == 'SUCCESS' && @.context.mcp.toolExecution.result.mapped.status == 'SUBMITTED')]",
      { context: { mcp: { toolExecution: { status: 'SUCCESS', result: { mapped: { status: 'SUBMITTED' } } } } } },
      true,
    ],
    ['$[?(@.context.mcp.toolExecution.scopeMismatch == true)]', { context: {} }, false],
    ['$[?(!(@.a == 1) || @.b)]', { a: 1, b: 'x' }, true],
    ['$[?(@.n > 40 && @.n <= 42)]', { n: 42 }, true],
    ["$[?(@.s < 'b')]", { s: 'a' }, true],
    ["$[?(@.n == '42')]", { n: 42 }, false],
    ['$[?(@.name =~ /ab.*/i)]', { name: 'ABC' }, true],
    ['$[?(@.name =~ /b/)]', { name: 'abc' }, false],
    ["$[?(@.code in ['A', 'B'])]", { code: 'B' }, true],
    ["$[?(@.code nin ['A', 'B'])]", { code: 'B' }, false],
    ['$[?(@.list size 2)]', { list: [1, 2] }, true],
    ['$[?(@.list empty true)]', { list: [] }, true],
    ["$[?(@.list contains 'x')]", { list: ['x'] }, true],
    ["$[?(@.tags subsetof ['a', 'b'])]", { tags: ['a'] }, true],
    ["$[?(@.tags anyof ['z', 'b'])]", { tags: ['a', 'b'] }, true],
    ["$[?(@.tags noneof ['z'])]", { tags: ['a', 'b'] }, true],
    ['$[?(@.present)]', { present: false }, true],
    ['$[?(!@.absent)]', {}, true],
    ['$[?(@.a == $.b)]', { a: 1, b: 1 }, true],
    ['$.items[?(@.ok == true)]', { items: [{ ok: false }, { ok: true }] }, true],
    ['$.items[?(@.ok == true)]', { items: [{ ok: false }] }, false],
    ['$.items.length()', { items: [] }, true],
    ['$.items[0]', { items: [] }, false],
    ['$.items[-1]', { items: [1, 2] }, true],
    ['$.only', { only: true }, true],
    ['$..flag', { a: { flag: false } }, false],
    ['$..flag', { a: { flag: false }, b: { flag: true } }, true],
  ])('%s on %j → %p', (path, doc, expected) => {
    expect(evaluateJsonPathRule(path, doc)).toBe(expected);
  });
});

describe('jsonPathValues / firstJsonPathMatch', () => {
  const doc: Json = {
    store: {
      book: [
        { title: 'A', price: 8 },
        { title: 'B', price: 12 },
        { title: 'C', price: 30 },
      ],
    },
    'odd key': { '*': 'star', '0': 'zero' },
    mapped: { orderId: 'ORD-7017', status: 'SUBMITTED' },
  };
  it.each<[string, Json[]]>([
    ['$.store.book[*].title', ['A', 'B', 'C']],
    ['$.store.book[0,2].title', ['A', 'C']],
    ['$.store.book[1:].title', ['B', 'C']],
    ['$.store.book[-1].title', ['C']],
    ['$..price', [8, 12, 30]],
    ['$.store.book[?(@.price > 10)].title', ['B', 'C']],
    ["$['odd key']['*']", ['star']],
    ["$['odd key']['0']", ['zero']],
    ["$.mapped['orderId','status']", ['ORD-7017', 'SUBMITTED']],
    ['$.store.book.length()', [3]],
    ['$.store.book[*].price.max()', [30]],
    ['$.store.book[*].price.sum()', [50]],
    ['$.mapped.keys()', [['orderId', 'status']]],
    ['mapped.status', ['SUBMITTED']],
    ['$.nothing.here', []],
  ])('%s → %j', (path, expected) => {
    expect(jsonPathValues(path, doc)).toEqual(expected);
  });

  it('returns the first match or undefined', () => {
    expect(firstJsonPathMatch('$.mapped', doc)).toEqual({ orderId: 'ORD-7017', status: 'SUBMITTED' });
    expect(firstJsonPathMatch('$.store.book[*].title', doc)).toBe('A');
    expect(firstJsonPathMatch('$.absent', doc)).toBeUndefined();
    expect(firstJsonPathMatch('bad(((', doc)).toBeUndefined();
  });

  it('never evaluates script: a would-be code filter is a syntax error', () => {
    expect(checkJsonPath('$[?(@.constructor.constructor("return process")())]')).not.toBeNull();
    expect(jsonPathValues('$[?(@.a.toString())]', { a: 1 })).toEqual([]);
    expect(checkJsonPath('$[(@.length-1)]')).toMatch(/script expressions/);
  });
});

describe('checkJsonPath', () => {
  it.each([
    '$.a',
    '$',
    '$..finalAnswer',
    "$[?(@.context.mcp.toolExecution.status == 'SUCCESS' && @.context.mcp.toolExecution.result.mapped.status == 'SUBMITTED')]",
    '$.a[0:2:1]',
    "$['a','b']",
    '$.list.length()',
    'customerId',
  ])('accepts %s', (path) => {
    expect(checkJsonPath(path)).toBeNull();
  });

  it.each([
    ['bad(((', /expected "\)"/],
    ['$.a[', /inside "\[\]"/],
    ['$.a.', /must not end with/],
    ['', /empty/],
    ['$[?(@.a == )]', /value was expected|expected a value/],
    ['$[?(@.a === 1)]', /"==="/],
    ['$[?(@.a = 1)]', /use "=="/],
    ["$[?(@.a == 'x')", /closing "\]"/],
    ["$[?(@.a == 'x]", /unterminated string/],
    ['$[?(@.a =~ /(unclosed/)]', /invalid regular expression/],
    ['$[?(@.a =~ "x")]', /needs a regular expression/],
    ['$.a.nope()', /unknown function nope\(\)/],
    ['$.a.length().b', /must be the last segment/],
    ['$.a[1:2:0]', /step must not be 0/],
  ])('rejects %p', (path, reason) => {
    expect(checkJsonPath(path)).toMatch(reason);
  });
});
