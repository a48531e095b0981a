import { parse, type Statement } from 'pgsql-ast-parser';
import { inspectStatement, type AstProblem } from './ast-checks';
import { EMPTY_SQL_POLICY, formatFunctionRef, functionVerdict, type SqlGuardrailPolicy } from './functions';
import { SqlLexError, significantTokens, tokenizeSql, type SqlToken } from './lexer';
import { findBlockedKeyword, hasSelectInto, leadingStatementKind, rowLockClause, semicolonCount } from './lexical';
import { SqlParamError, toPositionalParams } from './params';

/**
 * The read-only SQL guardrail (P4, D8). It accepts exactly one SELECT (WITH … SELECT allowed)
 * that writes nothing, locks nothing and calls only side-effect-free functions. It is a pure
 * function of (SQL, policy) and fails closed: whatever it cannot parse is refused. Every verdict
 * carries a reason a config author can act on.
 */
export type SqlVerdictCode =
  | 'ALLOWED'
  | 'BLANK'
  | 'MULTI_STATEMENT'
  | 'NOT_READ_ONLY'
  | 'DATA_MODIFYING_CTE'
  | 'SELECT_INTO'
  | 'ROW_LOCK'
  | 'BLOCKED_KEYWORD'
  | 'BLOCKED_FUNCTION'
  | 'FUNCTION_NOT_ALLOWED'
  | 'BAD_PARAMETERS'
  | 'UNPARSEABLE';

export interface SqlVerdict {
  allowed: boolean;
  code: SqlVerdictCode;
  reason: string;
}

const READ_ONLY_HINT = 'only a single read-only SELECT (optionally WITH … SELECT) may run';

function refuse(code: SqlVerdictCode, reason: string): SqlVerdict {
  return { allowed: false, code, reason };
}

export interface SqlCheckOptions {
  /**
   * Check functions and blocked keywords (default true). Only a ce_mcp_db_tool row with
   * safe_mode=false turns this off (D8); the statement must still be a single read-only query.
   */
  enforcePolicy?: boolean;
}

export function checkReadOnlySql(
  sql: string,
  policy: SqlGuardrailPolicy = EMPTY_SQL_POLICY,
  options: SqlCheckOptions = {}
): SqlVerdict {
  let tokens: SqlToken[];
  try {
    tokens = tokenizeSql(sql);
  } catch (err) {
    if (err instanceof SqlLexError) return refuse('UNPARSEABLE', `SQL could not be parsed: ${err.message}.`);
    throw err;
  }
  const enforce = options.enforcePolicy ?? true;
  return lexicalVerdict(tokens, policy, enforce) ?? parsedVerdict(sql, tokens, policy, enforce);
}

function lexicalVerdict(tokens: SqlToken[], policy: SqlGuardrailPolicy, enforce: boolean): SqlVerdict | null {
  const significant = significantTokens(tokens);
  if (significant.every((t) => t.kind === 'punct' && t.text === ';')) return refuse('BLANK', 'SQL is blank.');
  const last = significant[significant.length - 1];
  const trailing = last?.kind === 'punct' && last.text === ';' ? 1 : 0;
  if (semicolonCount(tokens) > trailing) {
    return refuse('MULTI_STATEMENT', `SQL must be a single statement (found more than one; ${READ_ONLY_HINT}).`);
  }
  const keyword = enforce ? findBlockedKeyword(tokens, policy.blockKeywords) : null;
  if (keyword) return refuse('BLOCKED_KEYWORD', `SQL contains blocked keyword: ${keyword.toUpperCase()}.`);
  return null;
}

function parsedVerdict(sql: string, tokens: SqlToken[], policy: SqlGuardrailPolicy, enforce: boolean): SqlVerdict {
  let statements: Statement[];
  try {
    statements = parse(toPositionalParams(sql).sql);
  } catch (err) {
    if (err instanceof SqlParamError) return refuse('BAD_PARAMETERS', `SQL parameters are invalid: ${err.message}`);
    return unparseableVerdict(tokens, err);
  }
  const statement = statements[0];
  if (statements.length !== 1 || !statement) {
    return refuse('MULTI_STATEMENT', `SQL must be a single statement (${READ_ONLY_HINT}).`);
  }
  const inspection = inspectStatement(statement);
  if (inspection.problem) return problemVerdict(inspection.problem);
  for (const call of enforce ? inspection.calls : []) {
    const verdict = functionVerdict(call, policy);
    if (verdict === 'BLOCKED') {
      return refuse('BLOCKED_FUNCTION', `SQL uses blocked function: ${formatFunctionRef(call)}.`);
    }
    if (verdict === 'NOT_ALLOWED') {
      return refuse(
        'FUNCTION_NOT_ALLOWED',
        `SQL uses function not present in the allowlist: ${formatFunctionRef(call)}.`
      );
    }
  }
  const shape = statement.type.startsWith('with') ? 'WITH … SELECT query' : 'SELECT query';
  return { allowed: true, code: 'ALLOWED', reason: `Read-only ${shape}.` };
}

function problemVerdict(problem: AstProblem): SqlVerdict {
  switch (problem.code) {
    case 'NOT_READ_ONLY':
      return refuse('NOT_READ_ONLY', `${problem.kind} statements are not allowed: ${READ_ONLY_HINT}.`);
    case 'DATA_MODIFYING_CTE':
      return refuse(
        'DATA_MODIFYING_CTE',
        `WITH clause "${problem.cte}" contains a data-modifying ${problem.kind} statement; CTEs must be read-only.`
      );
    case 'ROW_LOCK':
      return refuse(
        'ROW_LOCK',
        `SQL uses a row-locking clause (${problem.clause}); read-only queries may not lock rows.`
      );
  }
}

/** The parser refused the SQL; name the offending construct when the tokens make it obvious. */
function unparseableVerdict(tokens: SqlToken[], err: unknown): SqlVerdict {
  const kind = leadingStatementKind(tokens);
  if (kind) return refuse('NOT_READ_ONLY', `${kind} statements are not allowed: ${READ_ONLY_HINT}.`);
  if (hasSelectInto(tokens)) {
    return refuse('SELECT_INTO', 'SQL uses SELECT INTO, which creates a table; read-only queries may not write.');
  }
  const lock = rowLockClause(tokens);
  if (lock) return refuse('ROW_LOCK', `SQL uses a row-locking clause (${lock}); read-only queries may not lock rows.`);
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return refuse(
    'UNPARSEABLE',
    `SQL could not be parsed as a single read-only query (${detail.trim()}); it is refused.`
  );
}
