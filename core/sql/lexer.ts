/**
 * A small PostgreSQL lexer. The guardrail and the SQL rewriters need to know what is a comment,
 * a string literal, a quoted identifier or a parameter before they look at words or semicolons;
 * regular expressions over raw text get that wrong (`'a;b'`, `-- delete`, `$$ … $$`).
 */
export type SqlTokenKind =
  | 'space'
  | 'comment'
  | 'string'
  | 'quoted_ident'
  | 'word'
  | 'number'
  | 'positional_param'
  | 'named_param'
  | 'operator'
  | 'punct';

export interface SqlToken {
  kind: SqlTokenKind;
  text: string;
  start: number;
}

export class SqlLexError extends Error {
  constructor(
    message: string,
    readonly position: number
  ) {
    super(message);
    this.name = 'SqlLexError';
  }
}

const OPERATOR_CHARS = '+-*/<>=~!@#%^&|`?';
const PUNCT_CHARS = ';,()[].';

function isWordStart(ch: string): boolean {
  return /[A-Za-z_\u0080-\uffff]/.test(ch);
}

function isWordChar(ch: string): boolean {
  return /[A-Za-z0-9_$\u0080-\uffff]/.test(ch);
}

/** End index (exclusive) of a `/* … *\/` comment starting at `i`; PostgreSQL nests them. */
function blockCommentEnd(sql: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < sql.length) {
    if (sql.startsWith('/*', j)) {
      depth += 1;
      j += 2;
    } else if (sql.startsWith('*/', j)) {
      depth -= 1;
      j += 2;
      if (depth === 0) return j;
    } else j += 1;
  }
  throw new SqlLexError('unterminated /* comment', i);
}

/** End of a single-quoted literal; `backslashEscapes` for E'…' strings. */
function quotedEnd(sql: string, i: number, quote: string, backslashEscapes: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const ch = sql[j];
    if (backslashEscapes && ch === '\\') j += 2;
    else if (ch === quote) {
      if (sql[j + 1] === quote) j += 2;
      else return j + 1;
    } else j += 1;
  }
  throw new SqlLexError(quote === '"' ? 'unterminated quoted identifier' : 'unterminated string literal', i);
}

/** `$tag$ … $tag$` (tag may be empty); returns -1 when `$` does not open a dollar quote here. */
function dollarQuoteEnd(sql: string, i: number): number {
  const open = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
  if (!open) return -1;
  const close = sql.indexOf(open[0], i + open[0].length);
  if (close < 0) throw new SqlLexError('unterminated dollar-quoted string', i);
  return close + open[0].length;
}

function scanWhile(sql: string, i: number, test: (ch: string) => boolean): number {
  let j = i;
  while (j < sql.length && test(sql[j] as string)) j += 1;
  return j;
}

function numberEnd(sql: string, i: number): number {
  const m = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(sql.slice(i));
  return i + (m ? m[0].length : 1);
}

/** Kind and end of the token starting at `i`. */
function scanToken(sql: string, i: number): { kind: SqlTokenKind; end: number } {
  const ch = sql[i] as string;
  const next = sql[i + 1] ?? '';
  if (/\s/.test(ch)) return { kind: 'space', end: scanWhile(sql, i, (c) => /\s/.test(c)) };
  if (ch === '-' && next === '-') return { kind: 'comment', end: scanWhile(sql, i, (c) => c !== '\n') };
  if (ch === '/' && next === '*') return { kind: 'comment', end: blockCommentEnd(sql, i) };
  if (ch === "'") return { kind: 'string', end: quotedEnd(sql, i, "'", false) };
  if (/[eE]/.test(ch) && next === "'") return { kind: 'string', end: quotedEnd(sql, i + 1, "'", true) };
  if (/[bBxXnN]/.test(ch) && next === "'") return { kind: 'string', end: quotedEnd(sql, i + 1, "'", false) };
  if (/[uU]/.test(ch) && next === '&' && sql[i + 2] === "'")
    return { kind: 'string', end: quotedEnd(sql, i + 2, "'", false) };
  if (ch === '"') return { kind: 'quoted_ident', end: quotedEnd(sql, i, '"', false) };
  if (ch === '$') return scanDollar(sql, i);
  if (ch === ':' && next === ':') return { kind: 'operator', end: i + 2 };
  if (ch === ':' && isWordStart(next)) return { kind: 'named_param', end: scanWhile(sql, i + 1, isWordChar) };
  if (/\d/.test(ch) || (ch === '.' && /\d/.test(next))) return { kind: 'number', end: numberEnd(sql, i) };
  if (isWordStart(ch)) return { kind: 'word', end: scanWhile(sql, i, isWordChar) };
  if (PUNCT_CHARS.includes(ch)) return { kind: 'punct', end: i + 1 };
  if (OPERATOR_CHARS.includes(ch))
    return { kind: 'operator', end: scanWhile(sql, i, (c) => OPERATOR_CHARS.includes(c)) };
  return { kind: 'operator', end: i + 1 };
}

function scanDollar(sql: string, i: number): { kind: SqlTokenKind; end: number } {
  if (/\d/.test(sql[i + 1] ?? '')) return { kind: 'positional_param', end: scanWhile(sql, i + 1, (c) => /\d/.test(c)) };
  const end = dollarQuoteEnd(sql, i);
  if (end > 0) return { kind: 'string', end };
  return { kind: 'operator', end: i + 1 };
}

/** Splits SQL into tokens; concatenating every token's text gives the input back. Throws SqlLexError. */
export function tokenizeSql(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const { kind, end } = scanToken(sql, i);
    tokens.push({ kind, text: sql.slice(i, end), start: i });
    i = end;
  }
  return tokens;
}

/** Tokens that carry meaning (no whitespace, no comments). */
export function significantTokens(tokens: readonly SqlToken[]): SqlToken[] {
  return tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
}

/** The identifier a word or quoted identifier names, lower-cased for comparisons. */
export function identifierText(token: SqlToken): string {
  if (token.kind === 'quoted_ident') return token.text.slice(1, -1).replace(/""/g, '"').toLowerCase();
  return token.text.toLowerCase();
}
