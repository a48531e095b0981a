import { RE2JS } from 're2js';
import { fromJavaSyntax } from './java-regex-syntax';
import { UserRegexError } from './user-regex-error';

/**
 * Regular expressions written by config authors (ce_rule REGEX, classifiers, policies, dialogue-act patterns,
 * ce_verbose, JSONPath `=~`, JSON Schema `pattern`) run on end-user text in every turn, and both are hostile
 * input. JavaScript's RegExp backtracks with no time limit: `^(a|a)*$` took 1.9 s on 26 characters and
 * `\d+\d+\d+\d+x` 0.9 s on 100. Checking patterns instead does not hold: safe-regex2's star height misses both,
 * and the precise checker (recheck) takes up to 7 s per pattern on the seeds' own classifiers.
 * So they run on RE2 (re2js, pure JavaScript), which never backtracks: a match costs at most (text length ×
 * pattern size), and both are capped (USER_REGEX_MAX_TEXT, USER_REGEX_MAX_SIZE).
 * The price is what only a backtracking matcher can do (lookahead, backreferences, possessive quantifiers, atomic
 * groups): such a pattern is refused with the reason.
 */
export { INVALID_REGEX, UserRegexError } from './user-regex-error';

/** A compiled author pattern. Match it with matchesFind or matchesEntire, which apply the text limit. */
export type UserRegex = RE2JS;

export function isUserRegex(value: unknown): value is UserRegex {
  return value instanceof RE2JS;
}

export interface UserRegexOptions {
  /** Case-insensitive even without `(?i)` (classifiers, REGEX rules and policies are, per the reference). */
  ignoreCase?: boolean;
  /**
   * 'java' (default) for author patterns; 'ecma' for a JSON Schema `pattern`, which is ECMA-262: there `[` and `&&`
   * inside a class are literal, as RE2 reads them, and \p{Alpha}, \h, \v, \R and `(?i)` are not Java's, so none of
   * Java's translations apply.
   */
  dialect?: 'java' | 'ecma';
}

/**
 * The longest text (UTF-16 code units) an author pattern is run on: the default MESSAGE_MAX_BYTES, so every
 * message the API accepts by default is matched whole. Longer text is not matched (see matchesFind).
 */
export const USER_REGEX_MAX_TEXT = 8192;

/**
 * The largest compiled pattern (RE2 program instructions). When RE2 falls back from its DFA to its NFA the cost
 * per character grows with this size; the seeds' largest is about 100, `\d{1,100}` is 201.
 */
export const USER_REGEX_MAX_SIZE = 1000;

/** True when `text` is longer than any author pattern is run on: the caller decides what that means. */
export function exceedsUserRegexText(text: string): boolean {
  return text.length > USER_REGEX_MAX_TEXT;
}

/** Constructs only a backtracking matcher can run: what they are, and how to do without. */
const BACKTRACKING_ONLY: [shape: RegExp, what: string, rewrite: string][] = [
  [
    /unsupported Perl syntax: `\(\?[=!]/,
    'a lookahead, (?=…) or (?!…)',
    'rewrite it without: put what must follow into the pattern itself, and check what must not occur with a second rule or policy',
  ],
  [
    /invalid escape sequence: `\\([1-9]|k)/,
    'a backreference, \\1 or \\k<name>',
    'rewrite it without: spell the repeated text out, e.g. (ab){2} for (ab)\\1',
  ],
  [
    /unsupported Perl syntax: `\(\?>/,
    'an atomic group, (?>…)',
    'write (?>…) as (?:…): this matcher never backtracks, so it adds nothing',
  ],
  [
    /invalid nested repetition operator: `[^`]*[*+?}]\+`/,
    'a possessive quantifier, such as a*+ or a++',
    'drop the extra + (a*+ as a*): this matcher never backtracks, so it adds nothing',
  ],
];

function compileFailure(pattern: string, err: unknown): string {
  const detail = (err instanceof Error ? err.message : String(err))
    .replace(/^error parsing regexp: /, '')
    .replace(/`(\(\?[ism]\))+/, '`');
  for (const [shape, what, rewrite] of BACKTRACKING_ONLY) {
    if (shape.test(detail)) {
      return `regular expression "${pattern}" uses ${what}, which needs a backtracking matcher, and one crafted message can keep such a matcher busy for minutes; ${rewrite}`;
    }
  }
  return `invalid regular expression "${pattern}": ${detail || 'does not compile'}`;
}

/**
 * Compiles a config author's pattern (Java syntax, see java-regex-syntax.ts). Throws UserRegexError whose message
 * says, in words, why the pattern is not usable.
 */
export function compileUserRegex(pattern: string, options: UserRegexOptions = {}): UserRegex {
  const { source, flags } = fromJavaSyntax(pattern, { dialect: options.dialect, ignoreCase: options.ignoreCase });
  let engineFlags = RE2JS.LOOKBEHINDS;
  if (options.ignoreCase || flags.has('i')) engineFlags |= RE2JS.CASE_INSENSITIVE;
  if (flags.has('s')) engineFlags |= RE2JS.DOTALL;
  if (flags.has('m')) engineFlags |= RE2JS.MULTILINE;
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, engineFlags);
  } catch (err) {
    throw new UserRegexError(pattern, compileFailure(pattern, err));
  }
  const size = re.programSize();
  if (size > USER_REGEX_MAX_SIZE) {
    throw new UserRegexError(
      pattern,
      `regular expression "${pattern}" is too large to match in bounded time (${size} steps, at most ${USER_REGEX_MAX_SIZE}); use smaller repetition counts (x{1,100} is 200 steps) or split it over several rows`
    );
  }
  return re;
}

const checked = new Map<string, string | null>();

/**
 * Null when the pattern compiles (and so runs in bounded time), else the reason (for config validation).
 * Remembered per pattern: settings are parsed, and so checked, on every read.
 */
export function checkUserRegex(pattern: string, options: UserRegexOptions = {}): string | null {
  const key = `${options.ignoreCase ? 'i' : '-'}${options.dialect ?? 'java'}:${pattern}`;
  let reason = checked.get(key);
  if (reason === undefined) {
    try {
      compileUserRegex(pattern, options);
      reason = null;
    } catch (err) {
      reason = err instanceof Error ? err.message : String(err);
    }
    if (checked.size >= 1000) checked.clear();
    checked.set(key, reason);
  }
  return reason;
}

/**
 * Java `Matcher.find()`: the pattern occurs somewhere in the text. Text longer than USER_REGEX_MAX_TEXT is not
 * searched and does not match; a caller for whom "no match" is the permissive answer (a policy, a guardrail)
 * checks exceedsUserRegexText first.
 */
export function matchesFind(re: UserRegex, text: string): boolean {
  return !exceedsUserRegexText(text) && re.test(text);
}

/** Java `Matcher.matches()`: the pattern matches the whole text. Over-long text does not match, as for find. */
export function matchesEntire(re: UserRegex, text: string): boolean {
  return !exceedsUserRegexText(text) && re.testExact(text);
}

/**
 * Ajv's `code.regExp`: JSON Schema `pattern` and `patternProperties` run on the same matcher, with the same
 * limits, as every other author pattern (arguments and extracted fields are matched on every call).
 */
export const schemaPatternEngine = Object.assign(
  (pattern: string) => {
    const re = compileUserRegex(pattern, { dialect: 'ecma' });
    return { test: (text: string) => matchesFind(re, text), toString: () => `/${pattern}/` };
  },
  { code: 'compileUserRegex' }
);
