import { SqlRefusal, unwrap, type RefusalCode } from './ast-node';
import { statementKindName, type WalkPolicy } from './ast-rules';
import { AstWalker } from './ast-walk';
import { EMPTY_SQL_POLICY, type SqlGuardrailPolicy } from './functions';
import { significantTokens, SqlLexError, tokenizeSql, type SqlToken } from './lexer';
import { findBlockedKeyword, leadingStatementKind } from './lexical';
import { SqlParamError, toPositionalParams } from './params';

/**
 * The read-only SQL guardrail (P4, D8). It accepts exactly one SELECT (WITH, VALUES and set
 * operations included) that writes nothing, locks nothing, reads only the business schemas and
 * calls only side-effect-free functions and operators. It parses with PostgreSQL's own grammar
 * (a `SqlParser` the caller loads: parsing is WASM, so loading it is I/O and lives in
 * activities/), so what it checks is what the server will run. It is a pure function of
 * (SQL, parser, policy) and fails closed: whatever it cannot parse or does not know is refused.
 * Every verdict carries a reason a config author can act on.
 */
export type SqlVerdictCode =
  'ALLOWED' | 'BLANK' | 'MULTI_STATEMENT' | 'BLOCKED_KEYWORD' | 'BAD_PARAMETERS' | 'UNPARSEABLE' | RefusalCode;

export interface SqlVerdict {
  allowed: boolean;
  code: SqlVerdictCode;
  reason: string;
}

/** PostgreSQL's parser: returns `{stmts: [{stmt: Node}…]}` or throws with PostgreSQL's message. */
export interface SqlParser {
  parse(sql: string): unknown;
}

/** The schema SQL tools read when no setting names others (db/migrations/0004). */
export const DEFAULT_BUSINESS_SCHEMAS: readonly string[] = ['business'];

export interface SqlCheckOptions {
  /**
   * Check the function allow-list, ce_mcp_sql_guardrail rows and blocked keywords (default true).
   * Only a ce_mcp_db_tool row with safe_mode=false turns this off (D8); the statement must still
   * be a single read-only query on the business schemas, and denied function classes stay denied.
   */
  enforcePolicy?: boolean;
  /** Schemas tool SQL may read; default DEFAULT_BUSINESS_SCHEMAS. */
  schemas?: readonly string[];
}

const READ_ONLY_HINT = 'only a single read-only SELECT (optionally WITH … SELECT) may run';

function refuse(code: SqlVerdictCode, reason: string): SqlVerdict {
  return { allowed: false, code, reason };
}

export function checkReadOnlySql(
  sql: string,
  parser: SqlParser,
  policy: SqlGuardrailPolicy = EMPTY_SQL_POLICY,
  options: SqlCheckOptions = {}
): SqlVerdict {
  let tokens: SqlToken[];
  let text: string;
  try {
    tokens = tokenizeSql(sql);
    text = toPositionalParams(sql).sql;
  } catch (err) {
    if (err instanceof SqlLexError) return refuse('UNPARSEABLE', `SQL could not be parsed: ${err.message}.`);
    if (err instanceof SqlParamError) return refuse('BAD_PARAMETERS', `SQL parameters are invalid: ${err.message}`);
    throw err;
  }
  if (significantTokens(tokens).length === 0) return refuse('BLANK', 'SQL is blank.');
  const enforce = options.enforcePolicy ?? true;
  const keyword = enforce ? findBlockedKeyword(tokens, policy.blockKeywords) : null;
  if (keyword) return refuse('BLOCKED_KEYWORD', `SQL contains blocked keyword: ${keyword.toUpperCase()}.`);
  let statements: unknown[];
  try {
    statements = statementsOf(parser.parse(text));
  } catch (err) {
    return unparseableVerdict(err);
  }
  if (statements.length === 0) return refuse('BLANK', 'SQL is blank.');
  if (statements.length > 1) return refuse('MULTI_STATEMENT', `SQL must be a single statement (${READ_ONLY_HINT}).`);
  const schemas = new Set((options.schemas ?? DEFAULT_BUSINESS_SCHEMAS).map((s) => s.toLowerCase()));
  return statementVerdict(statements[0], tokens, { functions: policy, enforceFunctionList: enforce, schemas });
}

function statementsOf(result: unknown): unknown[] {
  const stmts = (result as { stmts?: unknown } | null)?.stmts;
  if (stmts === undefined) return [];
  if (!Array.isArray(stmts)) throw new Error('unexpected parser output');
  return stmts.map((s) => (s as { stmt?: unknown } | null)?.stmt);
}

function statementVerdict(statement: unknown, tokens: SqlToken[], policy: WalkPolicy): SqlVerdict {
  try {
    const [type, body] = unwrap(statement);
    if (type !== 'SelectStmt') {
      const leading = leadingStatementKind(tokens);
      const kind = leading ?? statementKindName(type);
      return refuse('NOT_READ_ONLY', `${kind} statements are not allowed: ${READ_ONLY_HINT}.`);
    }
    new AstWalker(policy).body(type, body, 0);
    const shape = body['withClause'] !== undefined ? 'WITH … SELECT query' : 'SELECT query';
    return { allowed: true, code: 'ALLOWED' as const, reason: `Read-only ${shape}.` };
  } catch (err) {
    if (err instanceof SqlRefusal) return refuse(err.code, err.reason);
    throw err;
  }
}

/** PostgreSQL's own syntax error ("syntax error at or near …"); it names no data, so it is shown. */
function unparseableVerdict(err: unknown): SqlVerdict {
  const detail = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return refuse(
    'UNPARSEABLE',
    `SQL could not be parsed as a single read-only query (${detail.trim()}); it is refused.`
  );
}
