import { identifierText, significantTokens, type SqlToken } from './lexer';

/**
 * Checks made on tokens: blocked keywords (ce_mcp_sql_guardrail BLOCK_KEYWORD rows), and the
 * statement kind named by the first word, so a refusal says "DELETE statements are not allowed".
 */
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
