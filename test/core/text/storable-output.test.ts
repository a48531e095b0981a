import fc from 'fast-check';
import { MAX_OUTPUT_DEPTH, screenOutputJson, storableJson, storableText } from '../../../core/text/storable-output';
import type { Json } from '../../../core/json';

/** Arrays nested `levels` deep, built without recursion (as a hostile body would arrive). */
function nested(levels: number): Json {
  let value: Json = 'leaf';
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('model and tool output as PostgreSQL can store it (core/text/storable-output.ts)', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps surrogate pairs', () => {
    expect(storableText('hello\u0000world')).toBe('hello\uFFFDworld');
    expect(storableText('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('emoji 😀, tab\tand \u0001')).toBe('emoji 😀, tab\tand \u0001');
  });

  it('cleans every string and key of a JSON value', () => {
    expect(screenOutputJson({ 'k\u0000': ['a\u0000b', { n: 1, t: true, z: null }] })).toEqual({
      ok: true,
      json: { 'k\uFFFD': ['a\uFFFDb', { n: 1, t: true, z: null }] },
    });
  });

  it('drops a __proto__ key at any depth: the copy keeps its own prototype and Object.prototype is untouched', () => {
    const parsed = JSON.parse('{"a": 1, "__proto__": {"polluted": "yes"}, "n": [{"__proto__": {"x": 1}, "b": 2}]}');
    const screened = screenOutputJson(parsed as Json);
    expect(screened).toEqual({ ok: true, json: { a: 1, n: [{ b: 2 }] } });
    const json = (screened as { json: Record<string, unknown> }).json;
    expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
    expect(json['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it(`takes ${MAX_OUTPUT_DEPTH} levels and refuses one more, without overflowing on 100,000`, () => {
    expect(screenOutputJson(nested(MAX_OUTPUT_DEPTH))).toMatchObject({ ok: true });
    expect(screenOutputJson(nested(MAX_OUTPUT_DEPTH + 1))).toEqual({
      ok: false,
      error: `nested deeper than ${MAX_OUTPUT_DEPTH} levels`,
    });
    expect(screenOutputJson(nested(100_000))).toMatchObject({ ok: false });
  });

  describe('storableJson: JSON text for a json or jsonb parameter', () => {
    it('writes each lone surrogate and NUL, in values and keys, as U+FFFD; keeps pairs and escaped backslashes', () => {
      const value = { 'k\uD800': ['hi \uD83D', 'x\uDCB0y', 'nul\u0000', '💰 pair', 'backslash \\ud800 text'] };
      const text = storableJson(value);
      expect(JSON.parse(text)).toEqual({
        'k\uFFFD': ['hi \uFFFD', 'x\uFFFDy', 'nul\uFFFD', '💰 pair', 'backslash \\ud800 text'],
      });
      expect(storableJson({ a: 'plain "text"\n' })).toBe(JSON.stringify({ a: 'plain "text"\n' }));
    });

    it('reads back as storableText would make each string, whatever the strings hold', () => {
      const units = fc.constantFrom(
        '\uD800',
        '\uDBFF',
        '\uDC00',
        '\uDFFF',
        '\u0000',
        '\\',
        'u',
        'd',
        '8',
        '💰',
        'a',
        '"'
      );
      const anyText = fc.array(fc.oneof(units, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 12 });
      fc.assert(
        fc.property(
          fc.array(
            anyText.map((parts) => parts.join('')),
            { maxLength: 4 }
          ),
          (strings) => {
            expect(JSON.parse(storableJson(strings))).toEqual(strings.map(storableText));
          }
        ),
        { numRuns: 500 }
      );
    });
  });
});
