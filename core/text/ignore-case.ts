/**
 * Case-insensitive comparison of text as the Java engine's `String.equalsIgnoreCase` and
 * `regionMatches(ignoreCase=true, …)` do it (docs/config-reference.md, "Case-insensitive matching"): code point by
 * code point, two are equal when they are the same, when Character.toUpperCase gives the same for both, or when
 * Character.toLowerCase of those upper cases does. Those are the simple (one-to-one) case mappings of UnicodeData,
 * not the full ones String.prototype.toLowerCase applies to a whole string: lower-casing 'İptal' gives 'i̇ptal' (an i
 * and a combining dot, two code units for one), which no longer equals 'iptal', while Java's rule takes İ, i, I
 * and ı as one letter, Σ, σ and ς as one, ß and ẞ as one.
 *
 * The rule is an equivalence whose class is told by one code point, toLowerCase(toUpperCase(c)) (equal upper cases
 * have equal lower cases), so both sides are folded once to a string of those and compared as strings. No simple
 * mapping leaves its plane, so a folded string has the length of the text, a match in it is one at the same index
 * in the text, and `contains` and `startsWith` are regionMatches at some index, or at 0.
 */

/**
 * The code points whose whole-string mapping is several code points (İ → i̇, ᾀ → ἈΙ) but whose simple one is
 * another single one; every other such code point has no simple mapping (ß, ŉ, ﬁ stay as they are). Checked
 * against Java's Character table for every code point it maps (test/core/text/ignore-case.test.ts).
 */
const SIMPLE_EXCEPTIONS: ReadonlyMap<number, { upper: number; lower: number }> = new Map([
  [0x130, { upper: 0x130, lower: 0x69 }],
  ...[0x1f80, 0x1f90, 0x1fa0].flatMap((row) =>
    Array.from({ length: 8 }, (_, i) => [row + i, { upper: row + 8 + i, lower: row + i }] as const)
  ),
  [0x1fb3, { upper: 0x1fbc, lower: 0x1fb3 }],
  [0x1fc3, { upper: 0x1fcc, lower: 0x1fc3 }],
  [0x1ff3, { upper: 0x1ffc, lower: 0x1ff3 }],
]);

/** The one code point a mapping of one code point gave, or the code point itself when it gave several. */
function single(mapped: string, codePoint: number): number {
  const first = mapped.codePointAt(0) ?? codePoint;
  return mapped.length === String.fromCodePoint(first).length ? first : codePoint;
}

/** Java's Character.toUpperCase(int): the simple upper-case mapping. */
export function simpleUpperCase(codePoint: number): number {
  const exception = SIMPLE_EXCEPTIONS.get(codePoint);
  return exception ? exception.upper : single(String.fromCodePoint(codePoint).toUpperCase(), codePoint);
}

/** Java's Character.toLowerCase(int): the simple lower-case mapping (one letter alone: no final-sigma context). */
export function simpleLowerCase(codePoint: number): number {
  const exception = SIMPLE_EXCEPTIONS.get(codePoint);
  return exception ? exception.lower : single(String.fromCodePoint(codePoint).toLowerCase(), codePoint);
}

/** The code point that stands for a code point's class under Java's rule. */
function caseKey(codePoint: number): number {
  return simpleLowerCase(simpleUpperCase(codePoint));
}

/** The characters past ASCII some case mapping changes: every other one is its own class. */
const CASED_PAST_ASCII = /(?![\0-\x7f])\p{Changes_When_Casemapped}/gu;

/** ASCII's cased letters: their class is their lower case, and no other ASCII character has a case. */
const ASCII_UPPER = /[A-Z]+/g;

/** Each cased character's class, as it was first computed: a few thousand at most, so a text folds in one pass. */
const keys = new Map<string, string>();

function keyOf(char: string): string {
  let key = keys.get(char);
  if (key === undefined) {
    key = String.fromCodePoint(caseKey(char.codePointAt(0) ?? 0));
    keys.set(char, key);
  }
  return key;
}

/**
 * The last long text folded: a turn's message is compared with every classifier and rule pattern in turn (a short
 * pattern folds in no time, and keeping it would push the message out).
 */
let lastFolded = { text: '', folded: '' };
const KEPT_FROM_UNITS = 256;

/** The text with each code point replaced by its class's; as long as the text, in UTF-16 units. */
export function foldCase(text: string): string {
  if (text === lastFolded.text) return lastFolded.folded;
  const folded = text.replace(ASCII_UPPER, (letters) => letters.toLowerCase()).replace(CASED_PAST_ASCII, keyOf);
  if (text.length >= KEPT_FROM_UNITS) lastFolded = { text, folded };
  return folded;
}

/** Java's `a.equalsIgnoreCase(b)`. */
export function equalsIgnoreCase(a: string, b: string): boolean {
  return a.length === b.length && foldCase(a) === foldCase(b);
}

/** Whether `text` holds `part` at some index, each code point compared as equalsIgnoreCase does. */
export function containsIgnoreCase(text: string, part: string): boolean {
  return foldCase(text).includes(foldCase(part));
}

/** Java's `text.regionMatches(true, 0, prefix, 0, prefix.length())`. */
export function startsWithIgnoreCase(text: string, prefix: string): boolean {
  return foldCase(text).startsWith(foldCase(prefix));
}
