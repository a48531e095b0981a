import fc from 'fast-check';
import { isJsonObject, type Json } from '../../../core/json';
import { jsonPathValues } from '../../../core/rules/jsonpath';

const LARGE = 150_000;

/** Every object and array in the document, depth first, the node before its children. */
function preOrder(node: Json): Json[] {
  if (node === null || typeof node !== 'object') return [];
  const children = Array.isArray(node) ? node : Object.values(node);
  return [node, ...children.flatMap(preOrder)];
}

const doc: fc.Arbitrary<Json> = fc.letrec<{ node: Json }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: -5, max: 5 }),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 })
  ),
})).node;

describe('JSONPath on large documents (core/rules/jsonpath.ts)', () => {
  it('aggregates an array of 150,000 numbers (min/max spread one argument per number: RangeError)', () => {
    const x = Array.from({ length: LARGE }, (_, i) => (i * 7919) % LARGE);
    expect(jsonPathValues('$.x.max()', { x })).toEqual([LARGE - 1]);
    expect(jsonPathValues('$.x.min()', { x })).toEqual([0]);
    expect(jsonPathValues('$.x.sum()', { x: Array(130_000).fill(1) })).toEqual([130_000]);
    expect(jsonPathValues('$.x.max()', { x: Array(130_000).fill(1) })).toEqual([1]);
  });

  it('deep-scans 150,000 nodes (the descendants were spread into push: RangeError)', () => {
    const x = Array.from({ length: LARGE }, (_, i) => [i]);
    const lasts = jsonPathValues('$..[-1]', { x });
    expect(lasts).toHaveLength(LARGE + 1);
    expect(lasts.slice(0, 3)).toEqual([[LARGE - 1], 0, 1]);
  });

  it('deep-scans 130,000 objects with a filter', () => {
    const x = Array.from({ length: 130_000 }, (_, i) => ({ a: i }));
    expect(jsonPathValues('$..[?(@.a == 3)]', { x })).toEqual([{ a: 3 }]);
  });

  it('min, max, sum and avg agree with a plain loop on any array of numbers', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 30 }), (x) => {
        let [min, max, sum] = [Infinity, -Infinity, 0];
        for (const n of x) [min, max, sum] = [n < min ? n : min, n > max ? n : max, sum + n];
        expect(jsonPathValues('$.x.min()', { x })).toEqual([min]);
        expect(jsonPathValues('$.x.max()', { x })).toEqual([max]);
        expect(jsonPathValues('$.x.sum()', { x })).toEqual([sum]);
        expect(jsonPathValues('$.x.avg()', { x })).toEqual([sum / x.length]);
      }),
      { numRuns: 200 }
    );
  });

  it('a filtered deep scan visits the objects in document order, the node before its children', () => {
    fc.assert(
      fc.property(doc, (d) => {
        const expected = preOrder(d).filter((n) => isJsonObject(n) && Object.hasOwn(n, 'a'));
        expect(jsonPathValues('$..[?(@.a)]', d)).toEqual(expected);
      }),
      { numRuns: 300 }
    );
  });
});
