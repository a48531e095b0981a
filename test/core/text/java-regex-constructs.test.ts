import { checkUserRegex, compileUserRegex, matchesEntire, schemaPatternEngine } from '../../../core/text/regex';

/**
 * Java constructs RE2 spells otherwise (core/text/java-regex-constructs.ts). Each expectation is written from the
 * java.util.regex.Pattern documentation's definition, not from RE2, and checked on every ASCII character and on
 * non-ASCII characters near the definitions' edges.
 */
const inRange = (first: string, last: string) => (c: string) => c >= first && c <= last;
const oneOf = (chars: string) => (c: string) => chars.includes(c);
const either =
  (...sets: ((c: string) => boolean)[]) =>
  (c: string) =>
    sets.some((set) => set(c));

const lower = inRange('a', 'z');
const upper = inRange('A', 'Z');
const alpha = either(lower, upper);
const digit = inRange('0', '9');
const alnum = either(alpha, digit);
const punct = oneOf('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const graph = either(alnum, punct);

/** Pattern's "POSIX character classes (US-ASCII only)". */
const JAVA_POSIX: [name: string, holds: (c: string) => boolean][] = [
  ['Lower', lower],
  ['Upper', upper],
  ['ASCII', inRange('\x00', '\x7f')],
  ['Alpha', alpha],
  ['Digit', digit],
  ['Alnum', alnum],
  ['Punct', punct],
  ['Graph', graph],
  ['Print', either(graph, oneOf(' '))],
  ['Blank', oneOf(' \t')],
  ['Cntrl', either(inRange('\x00', '\x1f'), oneOf('\x7f'))],
  ['XDigit', either(digit, inRange('a', 'f'), inRange('A', 'F'))],
  ['Space', oneOf(' \t\n\x0b\f\r')],
];

/** Pattern's \h and \v. */
const JAVA_H = either(oneOf(' \t\xa0\u1680\u180e\u202f\u205f\u3000'), inRange('\u2000', '\u200a'));
const JAVA_V = oneOf('\n\x0b\f\r\x85\u2028\u2029');

const SAMPLES = [
  ...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)),
  ...'\x85\xa0é\xff\u017f\u1680\u180e\u2000\u200a\u200b\u2028\u2029\u202f\u205f\u212a\u3000٣Ω',
  '😀',
];

function matchingSamples(pattern: string, options: { ignoreCase?: boolean } = {}): string[] {
  const re = compileUserRegex(pattern, options);
  return SAMPLES.filter((c) => matchesEntire(re, c));
}

describe("Java's POSIX classes, \\h and \\v match what they match in Java", () => {
  it.each(JAVA_POSIX)('\\p{%s} and \\P{…}, outside and inside a class', (name, holds) => {
    const java = SAMPLES.filter(holds);
    const notJava = SAMPLES.filter((c) => !holds(c));
    expect(matchingSamples(`\\p{${name}}`)).toEqual(java);
    expect(matchingSamples(`[\\p{${name}}]`)).toEqual(java);
    expect(matchingSamples(`\\P{${name}}`)).toEqual(notJava);
    expect(matchingSamples(`[\\P{${name}}]`)).toEqual(notJava);
    expect(matchingSamples(`[^\\p{${name}}]`)).toEqual(notJava);
    expect(matchingSamples(`[^\\P{${name}}]`)).toEqual(java);
  });

  it.each([
    ['h', JAVA_H],
    ['v', JAVA_V],
  ] as const)('\\%s and its negation, outside and inside a class', (letter, holds) => {
    const java = SAMPLES.filter(holds);
    const notJava = SAMPLES.filter((c) => !holds(c));
    const negated = letter.toUpperCase();
    expect(matchingSamples(`\\${letter}`)).toEqual(java);
    expect(matchingSamples(`[\\${letter}]`)).toEqual(java);
    expect(matchingSamples(`\\${negated}`)).toEqual(notJava);
    expect(matchingSamples(`[\\${negated}]`)).toEqual(notJava);
    expect(matchingSamples(`[^\\${letter}]`)).toEqual(notJava);
  });

  it('mixes them with other class members', () => {
    expect(matchesEntire(compileUserRegex('[\\p{Digit}_\\h]+'), '1_ 2\t3')).toBe(true);
    expect(matchesEntire(compileUserRegex('[\\p{Digit}_\\h]+'), '1a')).toBe(false);
    expect(matchesEntire(compileUserRegex('\\p{Alpha}\\p{Digit}{2}\\p{Alnum}*'), 'A12bc3')).toBe(true);
    expect(matchesEntire(compileUserRegex('[\\P{Alpha}x]+'), '1x!')).toBe(true);
    expect(matchesEntire(compileUserRegex('[\\P{Alpha}x]+'), '1y')).toBe(false);
  });

  it('folds case under (?i) or ignoreCase, as Java does since JDK 16, and no further', () => {
    expect(matchingSamples('(?i)\\p{Lower}').filter((c) => c < '\x80')).toEqual(SAMPLES.filter(alpha));
    expect(matchingSamples('\\p{Upper}', { ignoreCase: true }).filter((c) => c < '\x80')).toEqual(
      SAMPLES.filter(alpha)
    );
    // Kelvin sign and long s fold to k and s in Unicode: a negated class must still leave the ASCII letters out.
    expect(matchingSamples('(?i)[\\P{Alpha}]').filter(alpha)).toEqual([]);
    expect(matchingSamples('(?i)\\P{ASCII}').filter((c) => c < '\x80')).toEqual([]);
  });

  it('leaves \\p{L} and the other Unicode classes to RE2', () => {
    expect(matchesEntire(compileUserRegex('\\p{L}+'), 'éΩ')).toBe(true);
    expect(matchesEntire(compileUserRegex('\\p{Lu}\\pL'), 'Ωa')).toBe(true);
  });
});

describe('Java \\R, a line break', () => {
  it.each([
    ['\r\n', true],
    ['\n', true],
    ['\r', true],
    ['\x0b', true],
    ['\f', true],
    ['\x85', true],
    ['\u2028', true],
    ['\u2029', true],
    ['\n\r', false],
    [' ', false],
    ['R', false],
  ])('\\R matches the whole of %p: %p', (text, expected) => {
    expect(matchesEntire(compileUserRegex('\\R'), text)).toBe(expected);
  });

  it('takes \\r\\n as one line break', () => {
    expect(matchesEntire(compileUserRegex('a\\Rb'), 'a\r\nb')).toBe(true);
    expect(matchesEntire(compileUserRegex('a\\R{2}b'), 'a\r\n\nb')).toBe(true);
    expect(matchesEntire(compileUserRegex('a\\R{2}b'), 'a\r\nb')).toBe(true); // the documented alternation lets \R take \r alone
  });

  it('is refused inside a class, as Java refuses it', () => {
    expect(checkUserRegex('[\\R]')).toMatch(/has \\R inside a character class, which Java refuses too/);
  });

  it('stays literal in \\Q…\\E', () => {
    expect(matchesEntire(compileUserRegex('\\Q\\R\\h\\p{Alpha}\\E'), '\\R\\h\\p{Alpha}')).toBe(true);
  });
});

describe('inline flags in mid-pattern', () => {
  it.each([
    ['foo(?i)bar', 'fooBAR', true],
    ['foo(?i)bar', 'FOObar', false],
    ['(?i)foo(?-i)bar', 'FOObar', true],
    ['(?i)foo(?-i)bar', 'FOOBAR', false],
    ['a(?i:b)c', 'aBc', true],
    ['a(?i:b)c', 'aBC', false],
    ['(?i:a)b', 'Ab', true],
    ['a(?s).', 'a\n', true],
    ['a.', 'a\n', false],
    ['a(?s-i:.)(?m)$', 'a\n', true],
    ['a(?u)b(?d)c(?iu:d)', 'abcD', true],
    ['a(?u:b)c', 'abc', true],
  ])('%s matches the whole of %p: %p', (pattern, text, expected) => {
    expect(matchesEntire(compileUserRegex(pattern), text)).toBe(expected);
  });

  it('(?-i) turns off the case-insensitivity a classifier or rule gets by default, as in Java', () => {
    const re = compileUserRegex('a(?-i)b', { ignoreCase: true });
    expect([matchesEntire(re, 'Ab'), matchesEntire(re, 'AB')]).toEqual([true, false]);
  });

  it.each([
    ['a(?x) b', /\(\?x\) \(comments mode\) is only supported at the start of the pattern/],
    ['(?U)\\w+', /\(\?U\) \(Java's UNICODE_CHARACTER_CLASS\) is not supported/],
    ['a(?U)b', /UNICODE_CHARACTER_CLASS/],
    ['a(?q)b', /unsupported inline flag \(\?q\)/],
  ])('refuses %p', (pattern, reason) => {
    expect(checkUserRegex(pattern)).toMatch(reason);
  });
});

describe('the POSIX-bracket refusal suggests what is accepted', () => {
  it.each([
    ['[[:alpha:]]', '\\p{Alpha}'],
    ['[[:digit:]_]', '\\p{Digit}'],
    ['x[[:^space:]]', '\\P{Space}'],
  ])('%p suggests %s', (pattern, escape) => {
    const reason = checkUserRegex(pattern) as string;
    expect(reason).toContain(`write ${escape} in place of`);
    const rewritten = pattern.replace(/\[:\^?\w+:\]/, escape);
    expect(checkUserRegex(rewritten)).toBeNull();
    expect(checkUserRegex(escape)).toBeNull();
  });
});

describe('JSON Schema patterns (ECMA-262) keep their own reading', () => {
  it.each(['\\p{Alpha}', '\\h', '\\R', 'a(?i)b'])('%p is not translated as Java', (pattern) => {
    expect(() => schemaPatternEngine(pattern)).toThrow();
  });
});
