import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  containsIgnoreCase,
  equalsIgnoreCase,
  simpleLowerCase,
  simpleUpperCase,
  startsWithIgnoreCase,
} from '../../../core/text/ignore-case';

/**
 * Java's Character.toUpperCase(int) and toLowerCase(int) for every code point either changes, as JDK 17 gives them
 * (test/fixtures/java-case/CaseTable.java wrote the file).
 */
const JAVA_CASE = new Map<number, { upper: number; lower: number }>(
  readFileSync(join(__dirname, '../../fixtures/java-case/java-case-table.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [cp, upper, lower] = line.split(' ').map((hex) => parseInt(hex, 16)) as [number, number, number];
      return [cp, { upper, lower }];
    })
);
const javaUpper = (cp: number) => JAVA_CASE.get(cp)?.upper ?? cp;
const javaLower = (cp: number) => JAVA_CASE.get(cp)?.lower ?? cp;

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/** JDK's StringUTF16.codePointIncluding: the code point a surrogate at `index` is part of, negated when it reads on. */
function codePointIncluding(s: string, cp: number, index: number, start: number, end: number): number {
  if (!isHigh(cp) && !isLow(cp)) return cp;
  if (isLow(cp)) {
    const before = index > start ? s.charCodeAt(index - 1) : -1;
    return isHigh(before) ? 0x10000 + ((before - 0xd800) << 10) + (cp - 0xdc00) : cp;
  }
  const after = index + 1 < end ? s.charCodeAt(index + 1) : -1;
  return isLow(after) ? -(0x10000 + ((cp - 0xd800) << 10) + (after - 0xdc00)) : cp;
}

/** JDK's StringUTF16.compareCodePointCI, as equal or not. */
const sameCI = (a: number, b: number) =>
  javaUpper(a) === javaUpper(b) || javaLower(javaUpper(a)) === javaLower(javaUpper(b));

/** JDK's CharacterDataLatin1.equalsIgnoreCase, for two strings of Latin-1 characters only. */
function latin1SameCI(b1: number, b2: number): boolean {
  if (b1 === b2) return true;
  const upper = b1 & 0xdf;
  if (upper < 0x41) return false;
  return (upper <= 0x5a || (upper >= 0xc0 && upper <= 0xde && upper !== 0xd7)) && upper === (b2 & 0xdf);
}

const isLatin1 = (s: string) => [...s].every((c) => c.charCodeAt(0) <= 0xff);

/** JDK 17+'s `value.regionMatches(true, toffset, other, ooffset, len)`, transcribed (StringUTF16.compareToCIImpl). */
function javaRegionMatches(value: string, toffset: number, other: string, ooffset: number, len: number): boolean {
  if (toffset < 0 || ooffset < 0 || toffset + len > value.length || ooffset + len > other.length) return false;
  if (isLatin1(value) && isLatin1(other)) {
    for (let i = 0; i < len; i++)
      if (!latin1SameCI(value.charCodeAt(toffset + i), other.charCodeAt(ooffset + i))) return false;
    return true;
  }
  const tlast = toffset + len;
  const olast = ooffset + len;
  for (let k1 = toffset, k2 = ooffset; k1 < tlast && k2 < olast; k1++, k2++) {
    let cp1 = value.charCodeAt(k1);
    let cp2 = other.charCodeAt(k2);
    if (cp1 === cp2 || sameCI(cp1, cp2)) continue;
    cp1 = codePointIncluding(value, cp1, k1, toffset, tlast);
    if (cp1 < 0) {
      k1++;
      cp1 = -cp1;
    }
    cp2 = codePointIncluding(other, cp2, k2, ooffset, olast);
    if (cp2 < 0) {
      k2++;
      cp2 = -cp2;
    }
    if (!sameCI(cp1, cp2)) return false;
  }
  return true;
}

const javaEquals = (a: string, b: string) => a.length === b.length && javaRegionMatches(a, 0, b, 0, a.length);
const javaStartsWith = (text: string, prefix: string) => javaRegionMatches(text, 0, prefix, 0, prefix.length);
const javaContains = (text: string, part: string) =>
  Array.from({ length: text.length - part.length + 1 }, (_, i) => i).some((i) =>
    javaRegionMatches(text, i, part, 0, part.length)
  );

/** Letters that are one another's case in Java's table, grouped (İ i I ı K k K ſ s S …), and a few without case. */
function caseFamilies(): string[][] {
  const family = new Map<number, Set<number>>();
  const unite = (a: number, b: number) => {
    const merged = new Set([...(family.get(a) ?? [a]), ...(family.get(b) ?? [b])]);
    for (const cp of merged) family.set(cp, merged);
  };
  for (const [cp, { upper, lower }] of JAVA_CASE) {
    unite(cp, upper);
    unite(cp, lower);
  }
  const uncased = ['あ', '漢', 'ก', '\u0307', ' ', '1', '-', '😀'].map((c) => [c]);
  return [...new Set(family.values())].map((set) => [...set].map((cp) => String.fromCodePoint(cp))).concat(uncased);
}

describe('case-insensitive comparison as Java compares (core/text/ignore-case.ts)', () => {
  it("maps every code point Java's Character maps as it does, each within its plane", () => {
    const wrong = [...JAVA_CASE].filter(
      ([cp, java]) => simpleUpperCase(cp) !== java.upper || simpleLowerCase(cp) !== java.lower
    );
    expect(wrong).toEqual([]);
    const crossing = [...JAVA_CASE].filter(
      ([cp, java]) => cp >> 16 !== java.upper >> 16 || cp >> 16 !== java.lower >> 16
    );
    expect(crossing).toEqual([]);
  });

  it.each([
    ['İptal', 'iptal', true],
    ['İptal', 'IPTAL', true],
    ['ıptal', 'İPTAL', true],
    ['ΟΔΟΣ', 'οδοσ', true],
    ['ΟΔΟΣ', 'οδος', true],
    ['ẞ', 'ß', true],
    ['ß', 'ss', false],
    ['ﬁ', 'fi', false],
    ['\u212a', 'k', true],
    ['ſ', 'S', true],
    ['𐐀', '𐐨', true],
    ['i\u0307', 'İ', false],
  ])('%s equalsIgnoreCase %s: %s', (a, b, expected) => {
    expect(javaEquals(a, b)).toBe(expected);
    expect(equalsIgnoreCase(a, b)).toBe(expected);
  });

  const families = caseFamilies();
  /** Several letters, each of some family; `spelt` picks one member of each, so two spellings often match. */
  const word = fc.array(fc.nat({ max: families.length - 1 }), { maxLength: 12 });
  const spelt = (letters: number[]) =>
    fc.tuple(...letters.map((f) => fc.constantFrom(...(families[f] as string[])))).map((chars) => chars.join(''));
  const twoSpellings = word.chain((letters) => fc.tuple(spelt(letters), spelt(letters)));

  it('equalsIgnoreCase agrees with Java on any two spellings of a word, and on unrelated text', () => {
    fc.assert(
      fc.property(
        fc.oneof(twoSpellings, fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }))),
        ([a, b]) => {
          expect(equalsIgnoreCase(a, b)).toBe(javaEquals(a, b));
        }
      ),
      { numRuns: 2000 }
    );
  });

  it("startsWith and contains agree with Java's regionMatches at the start and at any index", () => {
    const textAndPart = word.chain((letters) =>
      fc
        .tuple(spelt(letters), fc.nat({ max: letters.length }), fc.nat({ max: letters.length }))
        .chain(([text, i, j]) => {
          const part = letters.slice(Math.min(i, j), Math.max(i, j));
          return fc.tuple(fc.constant(text), part.length === 0 ? fc.constant('') : spelt(part));
        })
    );
    fc.assert(
      fc.property(textAndPart, ([text, part]) => {
        expect(containsIgnoreCase(text, part)).toBe(javaContains(text, part));
        expect(startsWithIgnoreCase(text, part)).toBe(javaStartsWith(text, part));
      }),
      { numRuns: 2000 }
    );
  });
});
