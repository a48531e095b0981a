import { RE2JS } from 're2js';
import { UserRegexError } from './user-regex-error';

/**
 * Java's Unicode property escapes that RE2 spells otherwise: \p{IsLatin}, \p{script=Latin}, \p{IsAlphabetic},
 * \p{javaLowerCase}, \p{javaWhitespace}, … Each is translated to the RE2 class holding the characters Java's
 * definition (java.util.regex.CharPredicates, java.lang.Character) holds, on RE2's Unicode tables; one without such
 * a class is refused with what to write instead. General categories (\p{Lu}) and POSIX names are left to RE2 and
 * java-regex-constructs.ts.
 *
 * Java never folds a property under (?i): its case-insensitive \p{IsGreek} does not match µ (U+00B5), while RE2
 * folds every class, and µ folds to Greek μ. So a property whose class RE2 would widen by folding is written
 * `(?-i:…)`, which holds in any case mode; inside a [class] that cannot be done, and it is refused when the pattern
 * matches case-insensitively.
 */

/** Whether the pattern matches case-insensitively: everywhere, nowhere, or in part (a mid-pattern (?i) or (?-i)). */
export type CaseMode = 'sensitive' | 'insensitive' | 'mixed';

interface PropertyClass {
  /** RE2 class members: one `\p{…}` escape or several members (ranges, escapes) to put inside `[…]`. */
  members: string;
  /** RE2's case folding adds characters Java's property lacks (re2js FOLD_CATEGORIES / FOLD_SCRIPT). */
  foldWidens?: boolean;
}

/** A property whose characters Java widens under CASE_INSENSITIVE: lower, upper and title case become all three. */
interface CaseDependentProperty {
  sensitive: PropertyClass;
  insensitive: PropertyClass;
}

type JavaProperty = PropertyClass | CaseDependentProperty;

/** Java's Lowercase, Uppercase and Titlecase properties under CASE_INSENSITIVE (all three, whichever was named). */
const CASED: PropertyClass = { members: '\\p{Lowercase}\\p{Uppercase}\\p{Lt}' };

function caseDependent(sensitive: PropertyClass): CaseDependentProperty {
  return { sensitive, insensitive: CASED };
}

const ALPHABETIC: PropertyClass = { members: '\\p{Alphabetic}' };
const DIGIT: PropertyClass = { members: '\\p{Nd}' };
const LETTER: PropertyClass = { members: '\\p{L}', foldWidens: true };
const LOWERCASE = caseDependent({ members: '\\p{Lowercase}', foldWidens: true });
const UPPERCASE = caseDependent({ members: '\\p{Uppercase}', foldWidens: true });
const TITLECASE = caseDependent({ members: '\\p{Lt}', foldWidens: true });
const PUNCTUATION: PropertyClass = { members: '\\p{P}' };
const CONTROL: PropertyClass = { members: '\\p{Cc}' };
const WHITE_SPACE: PropertyClass = { members: '\\p{White_Space}' };
const HEX_DIGIT: PropertyClass = { members: '\\p{Nd}\\p{Hex_Digit}' };
const JOIN_CONTROL: PropertyClass = { members: '\\x{200c}\\x{200d}' };

/**
 * Java's binary properties (\p{IsAlphabetic}, names compared upper case) and, in that spelling, its POSIX names
 * with their Unicode definitions (\p{IsAlpha} is Alphabetic, not ASCII), as CharPredicates.forUnicodeProperty.
 * Absent, so refused: Ideographic, Graph and Print (RE2 has no Ideographic; Graph and Print are complements).
 */
const UNICODE_PROPERTIES: Readonly<Record<string, JavaProperty>> = {
  ALPHABETIC,
  ALPHA: ALPHABETIC,
  ASSIGNED: { members: '\\p{Assigned}' },
  CONTROL,
  CNTRL: CONTROL,
  HEXDIGIT: HEX_DIGIT,
  HEX_DIGIT,
  XDIGIT: HEX_DIGIT,
  JOINCONTROL: JOIN_CONTROL,
  JOIN_CONTROL,
  LETTER,
  LOWERCASE,
  LOWER: LOWERCASE,
  UPPERCASE,
  UPPER: UPPERCASE,
  TITLECASE,
  NONCHARACTERCODEPOINT: { members: nonCharacters() },
  NONCHARACTER_CODE_POINT: { members: nonCharacters() },
  PUNCTUATION,
  PUNCT: PUNCTUATION,
  WHITESPACE: WHITE_SPACE,
  WHITE_SPACE,
  SPACE: WHITE_SPACE,
  DIGIT,
  ALNUM: { members: '\\p{Alphabetic}\\p{Nd}' },
  BLANK: { members: '\\p{Zs}\\x{9}' },
  WORD: { members: '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\x{200c}\\x{200d}' },
};

/**
 * Java's own names (Character's isXxx methods), compared as written. Absent, so refused: javaIdeographic,
 * javaMirrored and the identifier classes (javaJavaIdentifierStart, …), which RE2 has no tables for.
 */
const JAVA_PROPERTIES: Readonly<Record<string, JavaProperty>> = {
  javaLowerCase: LOWERCASE,
  javaUpperCase: UPPERCASE,
  javaTitleCase: TITLECASE,
  javaAlphabetic: ALPHABETIC,
  javaDigit: DIGIT,
  javaDefined: { members: '\\p{Assigned}' },
  javaLetter: LETTER,
  javaLetterOrDigit: { members: '\\p{L}\\p{Nd}', foldWidens: true },
  javaSpaceChar: { members: '\\p{Z}' },
  // Character.isWhitespace: Zs, Zl and Zp but for the no-break spaces (U+00A0, U+2007, U+202F), and \t–\r, \x1c–\x1f.
  javaWhitespace: {
    members:
      '\\x{9}-\\x{d}\\x{1c}-\\x{20}\\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{2028}\\x{2029}\\x{205f}\\x{3000}',
  },
  javaISOControl: { members: '\\x{0}-\\x{1f}\\x{7f}-\\x{9f}' },
};

/** Java's forProperty names beyond the general categories RE2 shares, reachable as \p{IsL1} or \p{gc=L1}. */
const JAVA_CATEGORY_EXTRAS: Readonly<Record<string, PropertyClass>> = {
  LD: { members: '\\p{L}\\p{Nd}', foldWidens: true },
  L1: { members: '\\x{0}-\\x{ff}', foldWidens: true },
  all: { members: '\\x{0}-\\x{10ffff}' },
  ASCII: { members: '\\x{0}-\\x{7f}', foldWidens: true },
};

/** General categories, in Java's and RE2's shared spelling; RE2 folds the cased ones (FOLD_CATEGORIES). */
const GENERAL_CATEGORIES = new Set(
  'C Cc Cf Cn Co Cs L LC Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs'.split(
    ' '
  )
);
const FOLDED_CATEGORIES = new Set('L LC Ll Lt Lu M Mn'.split(' '));

/** RE2's names that are not scripts, so a title-cased Java script name must not be one of them. */
const RE2_NON_SCRIPT_NAMES = new Set([
  ...GENERAL_CATEGORIES,
  ...'Any Ascii Assigned Lc ASCII_Hex_Digit Alphabetic Dash Emoji Emoji_Component Emoji_Modifier'.split(' '),
  ...'Emoji_Modifier_Base Emoji_Presentation Extended_Pictographic Hex_Digit Lowercase Math'.split(' '),
  ...'Quotation_Mark Terminal_Punctuation Uppercase White_Space'.split(' '),
]);

/** Scripts whose class RE2 widens by folding (re2js FOLD_SCRIPT): µ is Common, U+0345 Inherited, both fold to Greek. */
const FOLDED_SCRIPTS = new Set(['Common', 'Greek', 'Inherited']);

/** U+FDD0–U+FDEF and the last two code points of each of the 17 planes. */
function nonCharacters(): string {
  const planes = Array.from({ length: 17 }, (_, plane) => {
    const last = (plane << 16) | 0xffff;
    return `\\x{${(last - 1).toString(16)}}-\\x{${last.toString(16)}}`;
  });
  return ['\\x{fdd0}-\\x{fdef}', ...planes].join('');
}

function category(name: string): PropertyClass | undefined {
  if (GENERAL_CATEGORIES.has(name)) return { members: `\\p{${name}}`, foldWidens: FOLDED_CATEGORIES.has(name) };
  return JAVA_CATEGORY_EXTRAS[name];
}

/** Java's UnicodeScript.forName reads the name upper case (OLD_ITALIC); RE2 spells it Old_Italic (and SignWriting). */
function script(name: string): PropertyClass | undefined {
  const re2Name = name
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('_')
    .replace(/^Signwriting$/, 'SignWriting');
  if (!/^\w+$/.test(re2Name) || RE2_NON_SCRIPT_NAMES.has(re2Name) || !knownToRe2(re2Name)) return undefined;
  return { members: `\\p{${re2Name}}`, foldWidens: FOLDED_SCRIPTS.has(re2Name) };
}

function knownToRe2(re2Name: string): boolean {
  try {
    RE2JS.compile(`\\p{${re2Name}}`);
    return true;
  } catch {
    return false;
  }
}

function refusal(pattern: string, escape: string, reason: string): UserRegexError {
  return new UserRegexError(pattern, `regular expression "${pattern}" uses ${escape}, ${reason}`);
}

const BLOCK_REASON =
  'a Unicode block, which this matcher has no tables for; write the block as a code point range ([\\x{370}-\\x{3ff}] for \\p{InGreek}), or the script if you mean its letters (\\p{IsGreek})';

function unknownReason(name: string): string {
  return `which this matcher cannot match as Java does: ${name} is not a Unicode script, general category or property it has an exact class for (write a script by its full name, \\p{IsLatin} rather than \\p{IsLatn}; Ideographic, Graph, Print, javaMirrored and the java…Identifier… classes are not supported)`;
}

/** Java's `name=value` forms (script, block, general category), as Pattern.family reads them. */
function resolveKeyed(pattern: string, escape: string, name: string): JavaProperty {
  const at = name.indexOf('=');
  const key = name.slice(0, at).toLowerCase();
  const value = name.slice(at + 1);
  if (key === 'blk' || key === 'block') throw refusal(pattern, escape, BLOCK_REASON);
  const property =
    key === 'sc' || key === 'script'
      ? script(value)
      : key === 'gc' || key === 'general_category'
        ? (category(value) ?? JAVA_PROPERTIES[value])
        : undefined;
  if (!property) throw refusal(pattern, escape, unknownReason(value));
  return property;
}

/** What Java reads in \p{name}; null for a name left to RE2 as written (\p{Lu}, and the POSIX names). */
function resolve(pattern: string, escape: string, name: string): JavaProperty | null {
  if (name.includes('=')) return resolveKeyed(pattern, escape, name);
  if (name.startsWith('In')) throw refusal(pattern, escape, BLOCK_REASON);
  if (name.startsWith('Is')) {
    const short = name.slice(2);
    const property =
      UNICODE_PROPERTIES[short.toUpperCase()] ?? category(short) ?? JAVA_PROPERTIES[short] ?? script(short);
    if (!property) throw refusal(pattern, escape, unknownReason(short));
    return property;
  }
  const property = JAVA_PROPERTIES[name] ?? (name === 'ASCII' ? undefined : JAVA_CATEGORY_EXTRAS[name]);
  if (!property && name.startsWith('java')) throw refusal(pattern, escape, unknownReason(name));
  return property ?? null;
}

function forCaseMode(pattern: string, escape: string, property: JavaProperty, caseMode: CaseMode): PropertyClass {
  if (!('sensitive' in property)) return property;
  if (caseMode === 'mixed') {
    throw refusal(
      pattern,
      escape,
      'whose characters Java widens under (?i) (lower, upper and title case become all three), in a pattern that turns (?i) on or off mid-way; set (?i) for the whole pattern or not at all'
    );
  }
  return caseMode === 'insensitive' ? property.insensitive : property.sensitive;
}

/**
 * The RE2 text for Java's property escape `escape` (\p{name}, or \P{name} when negated), or null when RE2 reads it
 * as Java does. Throws UserRegexError for one this matcher cannot match as Java does.
 */
export function javaPropertyEscape(
  pattern: string,
  escape: string,
  where: { negated: boolean; inClass: boolean; caseMode: CaseMode }
): string | null {
  const name = escape.slice(3, -1);
  const property = resolve(pattern, escape, name);
  if (!property) return null;
  const { members, foldWidens } = forCaseMode(pattern, escape, property, where.caseMode);
  const folded = foldWidens === true && where.caseMode !== 'sensitive';
  const single = /^\\p\{\w+\}$/.test(members);
  const negatedSingle = `\\P${members.slice(2)}`;
  if (where.inClass) {
    if (folded) {
      throw refusal(
        pattern,
        escape,
        `inside a character class under case-insensitive matching, where this matcher would also match the case partners of its characters, which Java's ${escape} does not (µ, whose partner μ is Greek, for \\p{IsGreek}); write it outside the class: (?:[…]|${escape})`
      );
    }
    if (!where.negated) return members;
    if (single) return negatedSingle;
    throw refusal(
      pattern,
      escape,
      `negated inside a character class, which this matcher cannot spell; write it outside the class: (?:[…]|${escape})`
    );
  }
  const text = single ? (where.negated ? negatedSingle : members) : `[${where.negated ? '^' : ''}${members}]`;
  return folded ? `(?-i:${text})` : text;
}
