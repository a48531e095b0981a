import { checkUserRegex, compileUserRegex, matchesEntire } from '../../../core/text/regex';

/**
 * Java's Unicode property escapes (core/text/java-regex-properties.ts). Each expectation is Java's definition
 * (java.util.regex.CharPredicates and java.lang.Character's isXxx), written with JavaScript's own Unicode property
 * escapes, and is checked on every code point of planes 0 and 1 (all cased characters are there) on which
 * JavaScript's and RE2's Unicode tables agree about being assigned.
 */
type CodePointSet = (c: string) => boolean;

function js(body: string): CodePointSet {
  const re = new RegExp(`^[${body}]$`, 'u');
  return (c) => re.test(c);
}

const unassignedInJs = /^\p{Cn}$/u;
const unassignedInRe2 = compileUserRegex('\\p{Cn}');
const CODE_POINTS = Array.from({ length: 0x20000 }, (_, cp) => cp)
  .filter((cp) => cp < 0xd800 || cp > 0xdfff)
  .map((cp) => String.fromCodePoint(cp))
  .filter((c) => unassignedInJs.test(c) === matchesEntire(unassignedInRe2, c));

const cp = (c: string) => c.codePointAt(0) as number;
const CASED = '\\p{Lowercase}\\p{Uppercase}\\p{Lt}';
const javaWhitespace: CodePointSet = (c) =>
  (/^[\p{Zs}\p{Zl}\p{Zp}]$/u.test(c) && !'\xa0\u2007\u202f'.includes(c)) ||
  (cp(c) >= 0x09 && cp(c) <= 0x0d) ||
  (cp(c) >= 0x1c && cp(c) <= 0x1f);
const nonCharacter: CodePointSet = (c) => (cp(c) & 0xfffe) === 0xfffe || (cp(c) >= 0xfdd0 && cp(c) <= 0xfdef);

/** Java's name, its characters, and, for the case-dependent ones, its characters under CASE_INSENSITIVE. */
const PROPERTIES: [name: string, java: CodePointSet, javaIgnoringCase?: CodePointSet][] = [
  ['IsLatin', js('\\p{Script=Latin}')],
  ['IsGreek', js('\\p{Script=Greek}')],
  ['IsCommon', js('\\p{Script=Common}')],
  ['IsInherited', js('\\p{Script=Inherited}')],
  ['IsCyrillic', js('\\p{Script=Cyrillic}')],
  ['IsHan', js('\\p{Script=Han}')],
  ['IsOLD_ITALIC', js('\\p{Script=Old_Italic}')],
  ['sc=Arabic', js('\\p{Script=Arabic}')],
  ['script=deseret', js('\\p{Script=Deseret}')],
  ['IsAlphabetic', js('\\p{Alphabetic}')],
  ['IsAlpha', js('\\p{Alphabetic}')],
  ['javaAlphabetic', js('\\p{Alphabetic}')],
  ['IsLetter', js('\\p{L}')],
  ['javaLetter', js('\\p{L}')],
  ['IsL', js('\\p{L}')],
  ['gc=Lo', js('\\p{Lo}')],
  ['javaLowerCase', js('\\p{Lowercase}'), js(CASED)],
  ['IsLowercase', js('\\p{Lowercase}'), js(CASED)],
  ['javaUpperCase', js('\\p{Uppercase}'), js(CASED)],
  ['IsUPPERCASE', js('\\p{Uppercase}'), js(CASED)],
  ['javaTitleCase', js('\\p{Lt}'), js(CASED)],
  ['IsDigit', js('\\p{Nd}')],
  ['javaDigit', js('\\p{Nd}')],
  ['IsPunctuation', js('\\p{P}')],
  ['IsControl', js('\\p{Cc}')],
  ['IsWhite_Space', js('\\p{Zs}\\p{Zl}\\p{Zp}\\t-\\r\\x85')],
  ['IsSpace', js('\\p{Zs}\\p{Zl}\\p{Zp}\\t-\\r\\x85')],
  ['IsHex_Digit', js('\\p{Nd}0-9A-Fa-f\\uff10-\\uff19\\uff21-\\uff26\\uff41-\\uff46')],
  ['IsJoin_Control', js('\\u200c\\u200d')],
  ['IsNoncharacter_Code_Point', nonCharacter],
  ['IsAssigned', js('\\P{Cn}')],
  ['javaDefined', js('\\P{Cn}')],
  ['IsAlnum', js('\\p{Alphabetic}\\p{Nd}')],
  ['IsBlank', js('\\p{Zs}\\t')],
  ['IsWord', js('\\p{Alphabetic}\\p{Mn}\\p{Me}\\p{Mc}\\p{Nd}\\p{Pc}\\u200c\\u200d')],
  ['javaWhitespace', javaWhitespace],
  ['javaSpaceChar', js('\\p{Zs}\\p{Zl}\\p{Zp}')],
  ['javaISOControl', js('\\0-\\x1f\\x7f-\\x9f')],
  ['javaLetterOrDigit', js('\\p{L}\\p{Nd}')],
  ['LD', js('\\p{L}\\p{Nd}')],
  ['L1', js('\\0-\\xff')],
  ['IsASCII', js('\\0-\\x7f')],
  ['all', () => true],
];

/** Every row with its characters under CASE_INSENSITIVE spelled out (a row's arity is its test's parameters). */
const ROWS = PROPERTIES.map(([name, java, javaIgnoringCase]) => [name, java, javaIgnoringCase ?? java] as const);

function expectExactly(pattern: string, options: { ignoreCase?: boolean }, java: CodePointSet): void {
  const re = compileUserRegex(pattern, options);
  const wrong = CODE_POINTS.filter((c) => matchesEntire(re, c) !== java(c)).slice(0, 5);
  expect({ pattern, ignoreCase: options.ignoreCase === true, wrong: wrong.map((c) => cp(c).toString(16)) }).toEqual({
    pattern,
    ignoreCase: options.ignoreCase === true,
    wrong: [],
  });
}

const not =
  (set: CodePointSet): CodePointSet =>
  (c) =>
    !set(c);

describe("Java's Unicode property escapes match what Java's match, on every code point of planes 0 and 1", () => {
  it.each(ROWS)('\\p{%s} and \\P{…} outside a class, case-sensitive and not', (name, java, insensitive) => {
    expectExactly(`\\p{${name}}`, {}, java);
    expectExactly(`\\P{${name}}`, {}, not(java));
    expectExactly(`\\p{${name}}`, { ignoreCase: true }, insensitive);
    expectExactly(`(?i)\\P{${name}}`, {}, not(insensitive));
  });

  it.each(ROWS)('\\p{%s} inside a class, where this matcher can spell it', (name, java, insensitive) => {
    expectExactly(`[\\p{${name}}]`, {}, java);
    expectExactly(`[^\\p{${name}}]`, {}, not(java));
    if (checkUserRegex(`[\\p{${name}}]`, { ignoreCase: true }) === null) {
      expectExactly(`[\\p{${name}}]`, { ignoreCase: true }, insensitive);
    }
    if (checkUserRegex(`[\\P{${name}}]`) === null) expectExactly(`[\\P{${name}}]`, {}, not(java));
  });

  it('refuses inside a class under (?i) only the classes this matcher would widen by folding, naming the rewrite', () => {
    const refused = PROPERTIES.map(([name]) => name).filter(
      (name) => checkUserRegex(`[\\p{${name}}]`, { ignoreCase: true }) !== null
    );
    // µ folds to Greek μ, U+0345 (Inherited, a mark) to ι. javaLowerCase and its kin are not refused: under (?i)
    // Java widens them to all cased characters, a class folding cannot widen.
    expect(refused).toEqual([
      'IsGreek',
      'IsCommon',
      'IsInherited',
      'IsLetter',
      'javaLetter',
      'IsL',
      'javaLetterOrDigit',
      'LD',
      'L1',
      'IsASCII',
    ]);
    expect(checkUserRegex('[a\\p{IsGreek}]', { ignoreCase: true })).toMatch(
      /inside a character class under case-insensitive matching.*write it outside the class: \(\?:\[…\]\|\\p\{IsGreek\}\)/
    );
    expect(matchesEntire(compileUserRegex('(?:[a]|\\p{IsGreek})+', { ignoreCase: true }), 'AΩ')).toBe(true);
  });

  it('keeps the rest of the pattern case-insensitive around a property', () => {
    const re = compileUserRegex('x\\p{IsGreek}y', { ignoreCase: true });
    expect([matchesEntire(re, 'XΩY'), matchesEntire(re, 'xµy')]).toEqual([true, false]);
  });

  it('mixes translated members with others in one class', () => {
    const re = compileUserRegex('[\\p{javaWhitespace}\\p{IsDigit}_]+');
    expect([matchesEntire(re, ' 1_\u3000٣'), matchesEntire(re, '1\xa0')]).toEqual([true, false]);
  });
});

describe('Java property escapes this matcher cannot match as Java does are refused with what to write', () => {
  it.each([
    ['\\p{InGreek}', /a Unicode block.*\[\\x\{370\}-\\x\{3ff\}\] for \\p\{InGreek\}.*\\p\{IsGreek\}/],
    ['\\p{blk=Greek}', /a Unicode block/],
    ['[\\P{InBasic_Latin}]', /a Unicode block/],
    ['\\p{IsLatn}', /Latn is not a Unicode script.*\\p\{IsLatin\} rather than \\p\{IsLatn\}/],
    ['\\p{sc=Nope}', /Nope is not a Unicode script/],
    ['\\p{IsIdeographic}', /Ideographic, Graph, Print, javaMirrored/],
    ['\\p{javaMirrored}', /javaMirrored is not/],
    ['\\p{javaJavaIdentifierStart}', /javaJavaIdentifierStart is not/],
    ['\\p{IsMath}', /Math is not/],
    ['[\\P{IsHex_Digit}]', /negated inside a character class.*write it outside the class/],
    ['a(?i)\\p{javaLowerCase}', /Java widens under \(\?i\).*set \(\?i\) for the whole pattern or not at all/],
    ['(?i:\\p{IsUppercase})', /set \(\?i\) for the whole pattern/],
  ])('%p', (pattern, reason) => {
    expect(checkUserRegex(pattern)).toMatch(reason);
  });

  it('still leaves general categories and RE2-only names as they were', () => {
    expect(checkUserRegex('\\p{Lu}\\pL\\p{Latin}')).toBeNull();
    expect(checkUserRegex('a(?i)\\p{IsGreek}b')).toBeNull();
  });
});
