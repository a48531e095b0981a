/**
 * Config authors write Java patterns (the seeds and the Java engine do); the matcher is RE2, whose syntax is
 * Java's for everything but a few spellings. This module turns the one into the other, or says why it cannot.
 */
import { translateJavaConstructs, refuseInlineFlag } from './java-regex-constructs';
import { UserRegexError } from './user-regex-error';

export { INVALID_REGEX, UserRegexError } from './user-regex-error';

export interface JavaPattern {
  /** The pattern in RE2 syntax, without its leading flags. */
  source: string;
  /** Leading inline flags, lower case: i, s, m (x, u and d are handled here or need nothing). */
  flags: ReadonlySet<string>;
}

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;

function takeLeadingFlags(pattern: string): { body: string; flags: Set<string> } {
  const flags = new Set<string>();
  let body = pattern;
  for (let m = LEADING_FLAGS.exec(body); m; m = LEADING_FLAGS.exec(body)) {
    for (const flag of m[1] as string) {
      refuseInlineFlag(pattern, flag, false);
      flags.add(flag.toLowerCase());
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

/** Java's octal escape after `\0`: one or two octal digits, or three when the first is 0–3 (at most \0377). */
const JAVA_OCTAL = /^(?:[0-3][0-7]{2}|[0-7]{1,2})/;

/**
 * The escapes Java has and RE2 spells otherwise: `\uFFFF` is `\x{FFFF}`, `\0101` (octal) is `\x{41}` (RE2 reads
 * `\010` and a literal 1), and `\Z` (end of input, Java also allows
 * a final line terminator before it) is taken as `\z`, as this engine always has. Text quoted by `\Q…\E` is kept.
 */
function translateEscapes(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    const next = body[i + 1] ?? '';
    if (ch !== '\\') {
      out += ch;
    } else if (next === 'Q') {
      const end = body.indexOf('\\E', i + 2);
      const stop = end < 0 ? body.length : end + 2;
      out += body.slice(i, stop);
      i = stop - 1;
    } else if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 2, i + 6))) {
      out += `\\x{${body.slice(i + 2, i + 6)}}`;
      i += 5;
    } else if (next === '0' && JAVA_OCTAL.test(body.slice(i + 2, i + 5))) {
      const digits = (JAVA_OCTAL.exec(body.slice(i + 2, i + 5)) as RegExpExecArray)[0];
      out += `\\x{${parseInt(digits, 8).toString(16)}}`;
      i += 1 + digits.length;
    } else {
      out += next === 'Z' ? '\\z' : ch + next;
      i++;
    }
  }
  return out;
}

/**
 * The pattern in RE2 syntax with its leading flags; throws UserRegexError for what this engine cannot honour
 * (`ignoreCase`: the caller matches case-insensitively even without a leading (?i)). A JSON
 * Schema pattern (dialect 'ecma') keeps ECMA-262's reading: no Java class escapes, class algebra or flag groups.
 */
export function fromJavaSyntax(
  pattern: string,
  options: { dialect?: 'java' | 'ecma'; ignoreCase?: boolean } = {}
): JavaPattern {
  const { body, flags } = takeLeadingFlags(pattern);
  const source = translateEscapes(flags.has('x') ? stripExtendedSyntax(body) : body);
  if (options.dialect !== 'ecma') {
    const ignoreCase = options.ignoreCase === true || flags.has('i');
    return { source: translateJavaConstructs(pattern, source, ignoreCase), flags };
  }
  if (/\(\?[a-zA-Z-]+[):]/.test(source)) {
    throw new UserRegexError(pattern, `inline flags are only supported at the start of the pattern: "${pattern}"`);
  }
  return { source, flags };
}
