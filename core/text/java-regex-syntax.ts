/**
 * Config authors write Java patterns (the seeds and the Java engine do); the matcher is RE2, whose syntax is
 * Java's for everything but a few spellings. This module turns the one into the other, or says why it cannot.
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

export interface JavaPattern {
  /** The pattern in RE2 syntax, without its leading flags. */
  source: string;
  /** Leading inline flags, lower case: i, s, m (x, u and d are handled here or need nothing). */
  flags: ReadonlySet<string>;
}

const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/;
const SUPPORTED_FLAGS = new Set(['i', 's', 'm', 'x', 'u', 'd']);

function takeLeadingFlags(pattern: string): { body: string; flags: Set<string> } {
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
 * The escapes Java has and RE2 spells otherwise: `\uFFFF` is `\x{FFFF}`, and `\Z` (end of input, Java also allows
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
    } else {
      out += next === 'Z' ? '\\z' : ch + next;
      i++;
    }
  }
  return out;
}

/** The pattern in RE2 syntax with its leading flags; throws UserRegexError for a flag this engine cannot honour. */
export function fromJavaSyntax(pattern: string): JavaPattern {
  const { body, flags } = takeLeadingFlags(pattern);
  const source = translateEscapes(flags.has('x') ? stripExtendedSyntax(body) : body);
  if (/\(\?[a-zA-Z-]+[):]/.test(source)) {
    throw new UserRegexError(pattern, `inline flags are only supported at the start of the pattern: "${pattern}"`);
  }
  return { source, flags };
}
