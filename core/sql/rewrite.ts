import { identifierText, tokenizeSql, type SqlToken } from './lexer';

/**
 * Pure SQL rewrites used by the default postgres.query interceptor. LLM-written SQL often treats
 * a timestamp column as epoch milliseconds (`to_timestamp(o.created_at / 1000.0)`) or asks for
 * February 29 of a non-leap year; both fail at execution. The rewrites work on tokens, so text
 * inside literals and comments is never touched, and the guardrail re-checks the result.
 */
export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** `'2025-02-29…'` → `'2025-03-01…'` when 2025 is not a leap year. */
export function rewriteLeapDayLiterals(sql: string): string {
  return tokenizeSql(sql)
    .map((token) => {
      if (token.kind !== 'string' || !token.text.startsWith("'")) return token.text;
      const m = /^'(\d{4})-02-29(.*)'$/s.exec(token.text);
      if (!m || isLeapYear(Number(m[1]))) return token.text;
      return `'${m[1]}-03-01${m[2]}'`;
    })
    .join('');
}

export interface EpochConversion {
  /** Alias or table name as written before the dot. */
  qualifier: string;
  /** Table the qualifier refers to (schema-qualified when written so), lower-cased. */
  table: string;
  column: string;
}

interface EpochMatch extends EpochConversion {
  /** Token index range [from, to) of `to_timestamp ( q . c / 1000 )`. */
  from: number;
  to: number;
  replacement: string;
}

function isWordLike(t: SqlToken | undefined): t is SqlToken {
  return t !== undefined && (t.kind === 'word' || t.kind === 'quoted_ident');
}

const NOT_ALIASES = new Set(['where', 'join', 'inner', 'left', 'right', 'full', 'cross', 'on', 'group', 'order']);
const ALIAS_STOP = new Set([...NOT_ALIASES, 'limit', 'union', 'having', 'window', 'natural', 'lateral', 'using']);

/** FROM/JOIN table references: alias (or bare table name) → table, from the token stream. */
export function tableAliases(tokens: readonly SqlToken[]): Map<string, string> {
  const sig = tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  const aliases = new Map<string, string>();
  for (let i = 0; i < sig.length; i++) {
    const word = sig[i]?.kind === 'word' ? sig[i]?.text.toLowerCase() : '';
    if (word !== 'from' && word !== 'join') continue;
    let j = i + 1;
    if (!isWordLike(sig[j])) continue;
    let table = identifierText(sig[j] as SqlToken);
    if (sig[j + 1]?.text === '.' && isWordLike(sig[j + 2])) {
      table = `${table}.${identifierText(sig[j + 2] as SqlToken)}`;
      j += 2;
    }
    aliases.set(table.split('.').pop() as string, table);
    let k = j + 1;
    if (sig[k]?.kind === 'word' && sig[k]?.text.toLowerCase() === 'as') k += 1;
    const alias = sig[k];
    if (isWordLike(alias) && !ALIAS_STOP.has(identifierText(alias))) aliases.set(identifierText(alias), table);
  }
  return aliases;
}

function matchEpochAt(sig: SqlToken[], i: number, aliases: Map<string, string>): EpochMatch | null {
  const t = (k: number): SqlToken | undefined => sig[i + k];
  if (t(0)?.kind !== 'word' || t(0)?.text.toLowerCase() !== 'to_timestamp' || t(1)?.text !== '(') return null;
  if (!isWordLike(t(2)) || t(3)?.text !== '.' || !isWordLike(t(4)) || t(5)?.text !== '/') return null;
  if (t(6)?.kind !== 'number' || !/^1000(\.0*)?$/.test(t(6)?.text ?? '') || t(7)?.text !== ')') return null;
  const qualifier = identifierText(t(2) as SqlToken);
  const table = aliases.get(qualifier);
  if (!table) return null;
  const replacement = `${(t(2) as SqlToken).text}.${(t(4) as SqlToken).text}`;
  return { qualifier, table, column: identifierText(t(4) as SqlToken), from: i, to: i + 8, replacement };
}

function epochMatches(sql: string): { sig: SqlToken[]; matches: EpochMatch[] } {
  const tokens = tokenizeSql(sql);
  const aliases = tableAliases(tokens);
  const sig = tokens.filter((t) => t.kind !== 'space' && t.kind !== 'comment');
  const matches: EpochMatch[] = [];
  for (let i = 0; i < sig.length; i++) {
    const m = matchEpochAt(sig, i, aliases);
    if (m) matches.push(m);
  }
  return { sig, matches };
}

/** The `to_timestamp(alias.col / 1000)` conversions in the SQL, so the caller can look up column types. */
export function findEpochConversions(sql: string): EpochConversion[] {
  return epochMatches(sql).matches.map(({ qualifier, table, column }) => ({ qualifier, table, column }));
}

/**
 * Replaces `to_timestamp(alias.col / 1000…)` with `alias.col` where `isTemporal(table, column)`
 * says the column already is a timestamp or date.
 */
export function rewriteEpochConversions(sql: string, isTemporal: (table: string, column: string) => boolean): string {
  const { sig, matches } = epochMatches(sql);
  let out = sql;
  for (const m of [...matches].reverse()) {
    if (!isTemporal(m.table, m.column)) continue;
    const first = sig[m.from] as SqlToken;
    const last = sig[m.to - 1] as SqlToken;
    out = out.slice(0, first.start) + m.replacement + out.slice(last.start + last.text.length);
  }
  return out;
}
