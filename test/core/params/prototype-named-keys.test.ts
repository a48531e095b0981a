import fc from 'fast-check';
import { carriedParams } from '../../../core/conversation/params';
import type { Json, JsonObject } from '../../../core/json';
import { summarizeResult } from '../../../core/mcp/observations';
import { REQUEST_SCOPED_PARAMS } from '../../../core/params/keys';
import { safeInputParams, UNSAFE_PARAM_KEYS } from '../../../core/params/safe';
import { buildPromptVars } from '../../../core/prompt/vars';
import { seedFromInputParams } from '../../../core/schema/merge';
import { schemaSubset } from '../../../core/schema/subset';
import { sessionFor } from '../../support/config-rows';

/**
 * Keys a client, a model or an upstream chooses are data, whatever their name: `obj[key] = value` makes a `__proto__`
 * key the object's prototype (the field is lost), and `key in obj` is true for every Object.prototype member.
 */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf'];
const key = fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES, ...UNSAFE_PARAM_KEYS, 'tool_request'), fc.string());
const value: fc.Arbitrary<Json> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.constant(null),
  fc.dictionary(fc.string(), fc.string())
);
/** An object as JSON.parse gives it: every key an own field (Object.fromEntries defines them so too). */
const params = fc
  .uniqueArray(fc.tuple(key, value), { selector: ([k]) => k, maxLength: 8 })
  .map((entries) => Object.fromEntries(entries.filter(([k]) => k !== 'droppedSystemPromptVars')) as JsonObject);

function expectOwnFields(out: JsonObject, source: JsonObject, kept: (key: string) => boolean): void {
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  for (const k of Object.keys(source).filter(kept)) {
    expect(Object.hasOwn(out, k)).toBe(true);
    expect(out[k]).toBe(source[k]);
  }
}

describe('keys named like Object.prototype members (core/params, core/conversation, core/prompt, core/mcp)', () => {
  it('safeInputParams keeps every safe key as an own field, in order', () => {
    fc.assert(
      fc.property(params, (input) => {
        const out = safeInputParams(input);
        const kept = (k: string) => !(UNSAFE_PARAM_KEYS as readonly string[]).includes(k);
        expectOwnFields(out, input, kept);
        const dropped = Object.keys(input).filter((k) => !kept(k));
        const extra = dropped.length > 0 ? ['droppedSystemPromptVars'] : [];
        expect(Object.keys(out)).toEqual([...Object.keys(input).filter(kept), ...extra]);
      })
    );
  });

  it('carriedParams carries every key that is not request-scoped as an own field', () => {
    fc.assert(
      fc.property(params, (input) => {
        const kept = (k: string) => !REQUEST_SCOPED_PARAMS.includes(k);
        const out = carriedParams(input);
        expectOwnFields(out, input, kept);
        expect(Object.keys(out)).toEqual(Object.keys(input).filter(kept));
      })
    );
  });

  it('prompt variables flatten params named constructor, toString or __proto__ like any other', () => {
    const inputParams = JSON.parse('{"constructor": "acct-1", "toString": "t", "__proto__": {"x": 1}}') as JsonObject;
    const vars = buildPromptVars(sessionFor('hi', { inputParams }));
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
    expect([vars['constructor'], vars['toString'], vars['x']]).toEqual(['acct-1', 't', undefined]);
    expect(Object.hasOwn(vars, '__proto__') && vars['__proto__']).toEqual({ x: 1 });
  });

  it("a tool result's own keys stay fields of its summary", () => {
    const result = JSON.parse('{"__proto__": {"x": 1}, "constructor": "c", "b": 2}') as JsonObject;
    const summary = summarizeResult(result, 1000) as JsonObject;
    expect(Object.getPrototypeOf(summary)).toBe(Object.prototype);
    expect(Object.keys(summary)).toEqual(['__proto__', 'constructor', 'b']);
  });

  it('schema fields named like prototype members are read from the context and params, never inherited', () => {
    const schema = { properties: { constructor: { type: 'string' }, toString: { type: 'string' } } };
    expect(schemaSubset({ toString: 'own' }, schema)).toEqual({ toString: 'own' });
    const context: JsonObject = {};
    seedFromInputParams(context, ['constructor', 'toString'], { toString: 'seeded' });
    expect(context).toEqual({ toString: 'seeded' });
    expect(Object.hasOwn(context, 'constructor')).toBe(false);
  });
});
