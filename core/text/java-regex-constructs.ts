import { javaPropertyEscape, type CaseMode } from './java-regex-properties';
import { UserRegexError } from './user-regex-error';

/**
 * Java constructs RE2 lacks or reads otherwise, in a Java pattern (not a JSON Schema one, which is ECMA-262): each is
 * translated to the RE2 spelling of what Java matches, or refused with the rewrite when RE2 would silently match
 * something else. Definitions are java.util.regex.Pattern's, without UNICODE_CHARACTER_CLASS (refused).
 */

/**
 * Java's POSIX classes (US-ASCII only) and RE2's class of the same name, which holds the same characters. Under
 * (?i) RE2 folds them, as Java does since JDK 16 (JDK-8214245: \p{Lower} matches `A`).
 */
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  Lower: 'lower',
  Upper: 'upper',
  ASCII: 'ascii',
  Alpha: 'alpha',
  Digit: 'digit',
  Alnum: 'alnum',
  Punct: 'punct',
  Graph: 'graph',
  Print: 'print',
  Blank: 'blank',
  Cntrl: 'cntrl',
  XDigit: 'xdigit',
  Space: 'space',
};

type CodePointRange = readonly [first: number, last: number];

/** Java's \h: [ \t\xA0\u1680\u180e\u2000-\u200a\u202f\u205f\u3000]. */
const HORIZONTAL_WHITESPACE: readonly CodePointRange[] = [
  [0x09, 0x09],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x180e, 0x180e],
  [0x2000, 0x200a],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];

/** Java's \v (RE2's \v is the vertical tab alone): [\n\x0B\f\r\x85\u2028\u2029]. */
const VERTICAL_WHITESPACE: readonly CodePointRange[] = [
  [0x0a, 0x0d],
  [0x85, 0x85],
  [0x2028, 0x2029],
];

/** Java's \R: \u000D\u000A|[\u000A\u000B\u000C\u000D\u0085\u2028\u2029]. */
const LINEBREAK = '(?:\\x{d}\\x{a}|[\\x{a}-\\x{d}\\x{85}\\x{2028}\\x{2029}])';

const MAX_CODE_POINT = 0x10ffff;

function rangesText(ranges: readonly CodePointRange[]): string {
  const hex = (c: number) => `\\x{${c.toString(16)}}`;
  return ranges.map(([first, last]) => (first === last ? hex(first) : `${hex(first)}-${hex(last)}`)).join('');
}

/** The code points not in the (sorted) ranges. Only for classes whose characters have no case partners. */
function complement(ranges: readonly CodePointRange[]): CodePointRange[] {
  const out: CodePointRange[] = [];
  let next = 0;
  for (const [first, last] of ranges) {
    if (first > next) out.push([next, first - 1]);
    next = last + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

/** Where a class escape stands: in a [class] or not, and the pattern's case mode. */
interface EscapeContext {
  pattern: string;
  inClass: boolean;
  caseMode: CaseMode;
}

/** The RE2 text for a Java class escape at `at` (a backslash), and how many characters it spans; null if none. */
function classEscape(source: string, at: number, context: EscapeContext): { text: string; length: number } | null {
  const { inClass } = context;
  const letter = source[at + 1] as string;
  const named = /^\\([pP])\{([^}]*)\}/.exec(source.slice(at));
  const posix = named && POSIX_CLASSES[named[2] as string];
  if (named && posix) {
    const name = `[:${named[1] === 'P' ? '^' : ''}${posix}:]`;
    return { text: inClass ? name : `[${name}]`, length: named[0].length };
  }
  if (named) {
    const negated = named[1] === 'P';
    const text = javaPropertyEscape(context.pattern, named[0], { negated, inClass, caseMode: context.caseMode });
    return text === null ? null : { text, length: named[0].length };
  }
  const ranges = { h: HORIZONTAL_WHITESPACE, v: VERTICAL_WHITESPACE }[letter.toLowerCase()];
  if (!ranges) return null;
  const negated = letter === letter.toUpperCase();
  const text = inClass
    ? rangesText(negated ? complement(ranges) : ranges)
    : `[${negated ? '^' : ''}${rangesText(ranges)}]`;
  return { text, length: 2 };
}

/** Java's inline flags; of them RE2 has i, m and s, and u (UNICODE_CASE) and d (UNIX_LINES) are what it does anyway. */
const JAVA_INLINE_FLAGS = new Set(['i', 's', 'm', 'x', 'u', 'd']);
const RE2_INLINE_FLAGS = new Set(['i', 's', 'm']);

/** Throws UserRegexError for an inline flag this engine cannot honour where it stands. */
export function refuseInlineFlag(pattern: string, flag: string, midPattern: boolean): void {
  if (flag === 'U') {
    throw new UserRegexError(
      pattern,
      `(?U) (Java's UNICODE_CHARACTER_CLASS) is not supported in "${pattern}": \\w, \\d, \\s, \\b and the POSIX classes such as \\p{Alpha} match ASCII here; write the Unicode class you mean instead (\\p{L} for letters, \\p{Nd} for digits)`
    );
  }
  if (midPattern && flag.toLowerCase() === 'x') {
    throw new UserRegexError(
      pattern,
      `(?x) (comments mode) is only supported at the start of the pattern: "${pattern}"; move it there, or write the pattern without spaces and # comments`
    );
  }
  if (!JAVA_INLINE_FLAGS.has(flag.toLowerCase())) {
    throw new UserRegexError(pattern, `unsupported inline flag (?${flag}) in "${pattern}"`);
  }
}

const FLAG_GROUP = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([):])/;

/** A group at `rest`: a mid-pattern flag group, `(?i)` or `(?i-s:…)`, in RE2's spelling; else the `(` alone. */
function flagGroup(pattern: string, rest: string): { text: string; length: number } {
  const m = FLAG_GROUP.exec(rest);
  if (!m || (m[1] === '' && m[2] === undefined)) return { text: '(', length: 1 };
  const [whole, set = '', clear = '', end] = m;
  for (const flag of set + clear) refuseInlineFlag(pattern, flag, true);
  const kept = (letters: string) => [...letters.toLowerCase()].filter((f) => RE2_INLINE_FLAGS.has(f)).join('');
  const flags = kept(set) + (kept(clear) ? `-${kept(clear)}` : '');
  return { text: flags ? `(?${flags}${end}` : end === ':' ? '(?:' : '', length: whole.length };
}

/** An escape at `at` in RE2's spelling: \Q…\E kept whole, Java's class escapes translated, others as written. */
function escapeSpan(source: string, at: number, context: EscapeContext): { text: string; length: number } {
  const { pattern, inClass } = context;
  const letter = source[at + 1] ?? '';
  // A backslash that ends the pattern escapes nothing: left for RE2 to name ("trailing backslash"), as in ecma.
  if (letter === '') return { text: '\\', length: 1 };
  if (letter === 'Q') {
    const end = source.indexOf('\\E', at + 2);
    const length = (end < 0 ? source.length : end + 2) - at;
    return { text: source.slice(at, at + length), length };
  }
  if (letter === 'R') {
    if (!inClass) return { text: LINEBREAK, length: 2 };
    throw new UserRegexError(
      pattern,
      `regular expression "${pattern}" has \\R inside a character class, which Java refuses too; write \\R outside the class, or the line terminators themselves: [\\n\\x0B\\f\\r\\x85\\u2028\\u2029]`
    );
  }
  return classEscape(source, at, context) ?? { text: `\\${letter}`, length: 2 };
}

/**
 * Java's class algebra has no RE2 spelling, and RE2 reads it as something else without complaint: inside a class,
 * `[a-c[x-z]]` (union) is the class `[a-c[x-z]` then a literal `]`, and `&&` (intersection) two literal `&`. A rule
 * written that way would silently never match what its author meant, so it is refused with the rewrite.
 */
function refuseClassAlgebra(pattern: string, source: string, at: number): void {
  if (source[at] === '[') {
    throw new UserRegexError(
      pattern,
      source[at + 1] === ':'
        ? classAlgebraReason(pattern, 'a POSIX class, [[:alpha:]] (Java reads it as a union)', posixRewrite(source, at))
        : classAlgebraReason(
            pattern,
            "a class inside a class (Java's union)",
            'list the ranges in one class: [a-cx-z] for [a-c[x-z]]'
          )
    );
  }
  if (source[at] === '&' && source[at + 1] === '&') {
    throw new UserRegexError(
      pattern,
      classAlgebraReason(pattern, 'a class intersection, &&', 'spell the resulting class out: [ac-z] for [a-z&&[^b]]')
    );
  }
}

function classAlgebraReason(pattern: string, what: string, rewrite: string): string {
  return `regular expression "${pattern}" uses ${what}, which this matcher reads differently from Java; ${rewrite} (escape a literal [ or & inside a class as \\[ or \\&)`;
}

/** Java's spelling of the POSIX class at `at` (`[:alpha:]` is \p{Alpha}), which this engine accepts. */
function posixRewrite(source: string, at: number): string {
  const m = /^\[:(\^?)(\w+):\]/.exec(source.slice(at));
  const java = m ? Object.keys(POSIX_CLASSES).find((name) => POSIX_CLASSES[name] === m[2]) : undefined;
  if (!m || !java)
    return 'write the Java class instead: \\p{Alpha} for [:alpha:] (\\p{Digit}, \\p{Alnum}, …), \\w for [:word:]';
  const escape = `\\${m[1] ? 'P' : 'p'}{${java}}`;
  return `write ${escape} in place of ${m[0]} (${escape} alone for [${m[0]}])`;
}

/**
 * A Java pattern (leading flags and escapes already taken, see fromJavaSyntax) in RE2 syntax: class escapes and
 * mid-pattern flag groups translated, class algebra refused. `ignoreCase`: the pattern starts case-insensitive.
 */
export function translateJavaConstructs(pattern: string, source: string, ignoreCase: boolean): string {
  const caseMode = caseModeOf(source, ignoreCase);
  let out = '';
  let classStart = -1;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    const inClass = classStart >= 0;
    const span =
      ch === '\\'
        ? escapeSpan(source, i, { pattern, inClass, caseMode })
        : ch === '(' && !inClass
          ? flagGroup(pattern, source.slice(i))
          : { text: ch, length: 1 };
    if (!inClass && ch === '[') classStart = source[i + 1] === '^' ? i + 1 : i;
    else if (inClass && ch === ']' && i > classStart + 1) classStart = -1;
    else if (inClass && ch !== '\\') refuseClassAlgebra(pattern, source, i);
    out += span.text;
    i += span.length - 1;
  }
  return out;
}

/**
 * Whether the pattern matches case-insensitively throughout, nowhere, or in part. Any flag group naming i counts as
 * a change (even one quoted in \\Q…\\E): the cost of a wrong 'mixed' is a refusal, never a different match.
 */
function caseModeOf(source: string, ignoreCase: boolean): CaseMode {
  const flagGroups = source.match(/\(\?[a-zA-Z]*(?:-[a-zA-Z]*)?[):]/g) ?? [];
  if (flagGroups.some((group) => /i/i.test(group))) return 'mixed';
  return ignoreCase ? 'insensitive' : 'sensitive';
}
