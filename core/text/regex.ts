import parseRegexTokens from 'ret';
import safeRegex from 'safe-regex2';

/**
 * Regular expressions written by config authors (ce_rule REGEX, classifiers, policies, dialogue-act
 * patterns). The seeds and the Java engine use Java syntax, whose leading inline flags `(?i)`,
 * `(?s)`, `(?m)`, `(?x)` JavaScript does not understand; they are translated to RegExp flags here.
 */
export const INVALID_REGEX = 'INVALID_REGEX';

export class UserRegexError extends Error {
  readonly type = INVALID_REGEX;
  constructor(
    readonly pattern: string,
    reason: string
  ) {
    super(reason);
    this.name = 'UserRegexError';
  }
}

export interface UserRegexOptions {
  /** Case-insensitive even without `(?i)` (classifiers, REGEX rules and policies are, per the reference). */
  ignoreCase?: boolean;
}

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;
const SUPPORTED_FLAGS = new Set(['i', 's', 'm', 'x', 'u', 'd']);

interface ParsedFlags {
  body: string;
  flags: Set<string>;
}

function takeLeadingFlags(pattern: string): ParsedFlags {
  const flags = new Set<string>();
  let body = pattern;
  for (let m = LEADING_FLAGS.exec(body); m; m = LEADING_FLAGS.exec(body)) {
    for (const flag of (m[1] as string).toLowerCase()) {
      if (!SUPPORTED_FLAGS.has(flag))
        throw new UserRegexError(pattern, `unsupported inline flag (?${flag}) in "${pattern}"`);
      flags.add(flag);
    }
    body = body.slice(m[0].length);
  }
  return { body, flags };
}

/** Java COMMENTS mode: whitespace and `#…` comments outside character classes are not part of the pattern. */
function stripExtendedSyntax(body: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch === '\\') {
      out += ch + (body[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
      out += ch;
    } else if (ch === '[') {
      inClass = true;
      out += ch;
    } else if (ch === '#') {
      while (i < body.length && body[i] !== '\n') i++;
    } else if (!/\s/.test(ch)) {
      out += ch;
    }
  }
  return out;
}

/**
 * Compiles a config author's pattern. Throws UserRegexError whose message says, in words, why the
 * pattern is not usable. The result never carries the `g`/`y` flags, so `test` is stateless.
 */
export function compileUserRegex(pattern: string, options: UserRegexOptions = {}): RegExp {
  const { body, flags } = takeLeadingFlags(pattern);
  let source = flags.has('x') ? stripExtendedSyntax(body) : body;
  if (/\(\?[a-zA-Z-]+[):]/.test(source)) {
    throw new UserRegexError(pattern, `inline flags are only supported at the start of the pattern: "${pattern}"`);
  }
  // Java's \A and \z anchors have direct JavaScript equivalents when multiline mode is off.
  if (!flags.has('m')) source = source.replace(/(^|[^\\])\\A/g, '$1^').replace(/(^|[^\\])\\[zZ]/g, '$1$');
  let jsFlags = '';
  if (options.ignoreCase || flags.has('i')) jsFlags += 'i';
  if (flags.has('s')) jsFlags += 's';
  if (flags.has('m')) jsFlags += 'm';
  try {
    return new RegExp(source, jsFlags);
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '') : '';
    throw new UserRegexError(pattern, `invalid regular expression "${pattern}": ${detail || 'does not compile'}`);
  }
}

/**
 * Null when the pattern compiles and cannot backtrack catastrophically, else the reason (for config validation).
 * JavaScript's RegExp has no time limit, and these patterns run on user text in every turn: one rule with
 * `h(a+)+$` froze the whole process for seconds per message. A quantifier inside a quantified group (star height
 * above 1, safe-regex2) is refused; a pattern the checker cannot read is left to the compile check.
 */
export function checkUserRegex(pattern: string, options: UserRegexOptions = {}): string | null {
  let re: RegExp;
  try {
    re = compileUserRegex(pattern, options);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
  if (readableByChecker(re.source) && !safeRegex(re.source, { limit: Number.POSITIVE_INFINITY })) {
    return `regular expression "${pattern}" nests a repetition inside a repetition, which can take exponential time on some input; rewrite it without the nesting (e.g. (a+)+ as a+)`;
  }
  return null;
}

function readableByChecker(source: string): boolean {
  try {
    parseRegexTokens(source);
    return true;
  } catch {
    return false;
  }
}

/** Java `Matcher.find()`: the pattern occurs somewhere in the text. */
export function matchesFind(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  return re.test(text);
}

/** Java `Matcher.matches()`: the pattern matches the whole text. */
export function matchesEntire(re: RegExp, text: string): boolean {
  const whole = new RegExp(`^(?:${re.source})$`, re.flags.replace(/[gy]/g, ''));
  return whole.test(text);
}
