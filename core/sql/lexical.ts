import { identifierText, significantTokens, type SqlToken } from './lexer';

/**
 * Checks made on tokens before (or instead of) parsing: how many statements there are, blocked
 * keywords, and — when the parser refuses a statement — a specific reason for the common kinds,
 * so the verdict says "DELETE is not allowed" rather than "syntax error at col 1".
 */
export function statementCount(tokens: readonly SqlToken[]): number {
  const significant = significantTokens(tokens);
  let count = 0;
  let sawContent = false;
  for (const token of significant) {
    if (token.kind === 'punct' && token.text === ';') {
      if (sawContent) count += 1;
      sawContent = false;
    } else sawContent = true;
  }
  return count + (sawContent ? 1 : 0);
}

/** Number of `;` separators, empty statements included (`select 1;;` has two). */
export function semicolonCount(tokens: readonly SqlToken[]): number {
  return tokens.filter((t) => t.kind === 'punct' && t.text === ';').length;
}

/** Words and quoted identifiers that equal a blocked keyword (comments and literals are ignored). */
export function findBlockedKeyword(tokens: readonly SqlToken[], keywords: readonly string[]): string | null {
  if (keywords.length === 0) return null;
  for (const token of tokens) {
    if (token.kind !== 'word' && token.kind !== 'quoted_ident') continue;
    const text = identifierText(token);
    if (keywords.includes(text)) return text;
  }
  return null;
}

const STATEMENT_KINDS: Record<string, string> = {
  insert: 'INSERT',
  update: 'UPDATE',
  delete: 'DELETE',
  merge: 'MERGE',
  upsert: 'UPSERT',
  drop: 'DROP',
  truncate: 'TRUNCATE',
  alter: 'ALTER',
  create: 'CREATE',
  call: 'CALL',
  do: 'DO',
  copy: 'COPY',
  grant: 'GRANT',
  revoke: 'REVOKE',
  vacuum: 'VACUUM',
  analyze: 'ANALYZE',
  analyse: 'ANALYZE',
  cluster: 'CLUSTER',
  reindex: 'REINDEX',
  refresh: 'REFRESH',
  lock: 'LOCK',
  comment: 'COMMENT',
  explain: 'EXPLAIN',
  execute: 'EXECUTE',
  prepare: 'PREPARE',
  set: 'SET',
  reset: 'RESET',
  discard: 'DISCARD',
  listen: 'LISTEN',
  notify: 'NOTIFY',
  unlisten: 'UNLISTEN',
  load: 'LOAD',
  security: 'SECURITY LABEL',
  import: 'IMPORT',
  checkpoint: 'CHECKPOINT',
  begin: 'BEGIN',
  commit: 'COMMIT',
  rollback: 'ROLLBACK',
  savepoint: 'SAVEPOINT',
  release: 'RELEASE',
  start: 'START TRANSACTION',
  end: 'END',
  abort: 'ABORT',
  show: 'SHOW',
  declare: 'DECLARE',
  fetch: 'FETCH',
  move: 'MOVE',
  close: 'CLOSE',
  table: 'TABLE',
};

/** The statement kind named by the first word, e.g. DELETE; null for SELECT/WITH/VALUES/(…). */
export function leadingStatementKind(tokens: readonly SqlToken[]): string | null {
  const first = significantTokens(tokens)[0];
  if (!first || first.kind !== 'word') return null;
  const word = first.text.toLowerCase();
  if (word === 'select' || word === 'with' || word === 'values') return null;
  return STATEMENT_KINDS[word] ?? word.toUpperCase();
}

/** True when INTO appears at the top level of the select list (`select * into t2 from t`). */
export function hasSelectInto(tokens: readonly SqlToken[]): boolean {
  let depth = 0;
  for (const token of significantTokens(tokens)) {
    if (token.kind === 'punct' && token.text === '(') depth += 1;
    else if (token.kind === 'punct' && token.text === ')') depth -= 1;
    else if (depth === 0 && token.kind === 'word' && token.text.toLowerCase() === 'into') return true;
  }
  return false;
}

const LOCK_SEQUENCES = [['update'], ['share'], ['no', 'key', 'update'], ['key', 'share']];

/** `FOR UPDATE`, `FOR SHARE`, `FOR NO KEY UPDATE`, `FOR KEY SHARE` anywhere in the statement. */
export function rowLockClause(tokens: readonly SqlToken[]): string | null {
  const words = significantTokens(tokens).map((t) => (t.kind === 'word' ? t.text.toLowerCase() : ''));
  for (let i = 0; i < words.length; i++) {
    if (words[i] !== 'for') continue;
    for (const seq of LOCK_SEQUENCES) {
      if (seq.every((w, k) => words[i + 1 + k] === w)) return `FOR ${seq.join(' ').toUpperCase()}`;
    }
  }
  return null;
}
