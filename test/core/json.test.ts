import { canonicalJson, cloneAsJson, cloneJson, jsonEqual } from '../../core/json';

/** A small deterministic generator (tests must not depend on Math.random). */
function rng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 2 ? 5 : 8));
  const keys = ['a', 'b', 'c', '1', '10'];
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -0, 1, 1.5, 1e21][Math.floor(next() * 5)];
    case 3:
      return ['', 'x', 'y', '1'][Math.floor(next() * 4)];
    case 4:
      return next() < 0.5 ? undefined : 'x';
    case 5:
      return Array.from({ length: Math.floor(next() * 3) }, () => randomValue(next, depth + 1));
    default: {
      const out: Record<string, unknown> = {};
      for (const key of keys) if (next() < 0.4) out[key] = randomValue(next, depth + 1);
      return out;
    }
  }
}

/** The same value with every object's keys inserted in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).reverse()) out[key] = reordered((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

const canonicalEqual = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

describe('jsonEqual (core/json.ts)', () => {
  it('ignores key order and undefined properties, like canonicalJson', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, gone: undefined }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual({ toString: 1 }, {})).toBe(false);
    expect(jsonEqual({}, { constructor: 1 })).toBe(false);
  });

  it('answers as canonicalJson does for values that are not plain JSON', () => {
    const cases: [unknown, unknown][] = [
      [[undefined], [null]],
      [[() => 1], [null]],
      [{ f: () => 1 }, {}],
      [
        { f: () => 1, a: 1 },
        { a: 2, g: 3 },
      ],
      [Number.NaN, null],
      [{ n: Number.POSITIVE_INFINITY }, { n: null }],
      [new Date(0), {}],
      [undefined, undefined],
      [undefined, () => 1],
      [{ a: Object.create(null) as object }, { a: {} }],
    ];
    for (const [a, b] of cases) expect([a, b, jsonEqual(a, b)]).toEqual([a, b, canonicalEqual(a, b)]);
  });

  it('agrees with canonicalJson on thousands of generated pairs', () => {
    const next = rng(42);
    let equalPairs = 0;
    for (let i = 0; i < 5000; i++) {
      const a = randomValue(next, 0);
      const b = next() < 0.3 ? reordered(a) : randomValue(next, 0);
      const expected = canonicalEqual(a, b);
      if (jsonEqual(a, b) !== expected)
        throw new Error(`disagree on ${String(canonicalJson(a))} / ${String(canonicalJson(b))}`);
      if (expected) equalPairs++;
    }
    // Both answers occur often enough for the comparison to mean something.
    expect(equalPairs).toBeGreaterThan(1000);
    expect(equalPairs).toBeLessThan(4000);
  });
});

describe('canonicalJson (core/json.ts)', () => {
  it('keeps a "__proto__" key as JSON.parse gave it, so two different values never share a form', () => {
    const withKey = JSON.parse('{"b": 2, "__proto__": {"x": 1}}') as unknown;
    expect(canonicalJson(withKey)).toBe('{"__proto__":{"x":1},"b":2}');
    expect(canonicalJson(withKey)).not.toBe(canonicalJson({ b: 2 }));
  });
});

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

describe('cloneAsJson (core/json.ts)', () => {
  it('copies plain data deeply, as the JSON round trip does', () => {
    const source = { a: [1, { b: 'x', gone: undefined }], n: -0, nested: { deep: [[null, true]] } };
    const copy = cloneAsJson(source) as typeof source;
    expect(copy).toEqual(roundTrip(source));
    expect(Object.keys(copy.a[1] as object)).toEqual(['b']);
    expect(Object.is(copy.n, 0)).toBe(true);
    expect(copy.a).not.toBe(source.a);
    expect(copy.nested.deep[0]).not.toBe(source.nested.deep[0]);
  });

  it('keeps the key order of the round trip, integer-like keys first', () => {
    const source = { b: 1, 10: 2, a: 3, 2: 4 };
    expect(JSON.stringify(cloneAsJson(source))).toBe(JSON.stringify(roundTrip(source)));
  });

  it('gives what the round trip gives for values that are not plain JSON', () => {
    const withProto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as unknown;
    const cases: unknown[] = [
      [undefined, () => 1, Number.NaN],
      { when: new Date(0), inf: Number.NEGATIVE_INFINITY },
      { list: [1, undefined] },
      withProto,
      { fn: () => 1, keep: 'me' },
    ];
    for (const value of cases) {
      const copy = cloneAsJson(value);
      expect(copy).toEqual(roundTrip(value));
      expect(JSON.stringify(copy)).toBe(JSON.stringify(roundTrip(value)));
    }
    expect(Object.getPrototypeOf(cloneAsJson(withProto))).toBe(Object.prototype);
    expect(Object.keys(cloneAsJson(withProto) as object)).toEqual(['__proto__', 'y']);
    expect(() => cloneAsJson(undefined)).toThrow();
  });

  it('agrees with the round trip on thousands of generated values', () => {
    const next = rng(7);
    for (let i = 0; i < 3000; i++) {
      const value = { v: randomValue(next, 0) };
      expect(JSON.stringify(cloneJson(value as never))).toBe(JSON.stringify(roundTrip(value)));
    }
  });
});
