import { SqlRefusal, isAstObject, unwrap, type AstObject } from './ast-node';
import {
  deniedClassOf,
  formatFunctionRef,
  functionVerdict,
  type FunctionRef,
  type SqlGuardrailPolicy,
} from './functions';
import {
  ALLOWED_EXPRESSION_KINDS,
  ALLOWED_OPERATORS,
  ALLOWED_SQL_VALUE_FUNCTIONS,
  ALLOWED_SUBLINK_TYPES,
  ALLOWED_TYPES,
  LOCK_CLAUSES,
  STATEMENT_NAMES,
} from './vocabulary';

/**
 * What a node may name: functions, operators, types, relations and schemas. Called by the walker
 * for every node before its fields are walked, so a check applies wherever the node sits.
 */
export interface WalkPolicy {
  functions: SqlGuardrailPolicy;
  /** False only for a ce_mcp_db_tool row with safe_mode off: the allow-list and rows are skipped (D8). */
  enforceFunctionList: boolean;
  /** Schemas tool SQL may read (lower-case). */
  schemas: ReadonlySet<string>;
}

const BUILT_IN_SCHEMA = 'pg_catalog';

function refuse(code: SqlRefusal['code'], reason: string): never {
  throw new SqlRefusal(code, reason);
}

/** The strings of a name list (`[{String:{sval}}…]`); anything else in it is refused. */
export function nameParts(list: unknown): string[] {
  if (!Array.isArray(list)) return refuse('UNSUPPORTED_SYNTAX', 'SQL uses a malformed name.');
  return list.map((item) => {
    const [type, body] = unwrap(item);
    if (type !== 'String' || typeof body['sval'] !== 'string')
      return refuse('UNSUPPORTED_SYNTAX', 'SQL uses a malformed name.');
    return body['sval'];
  });
}

/**
 * `schema` as PostgreSQL resolves it: the parser has folded an unquoted name to lower case and kept a quoted one as
 * written, so `"Business"` is another schema than `business` and is compared exactly. The system-schema test folds
 * case, refusing more, never less.
 */
function checkSchema(schema: string, policy: WalkPolicy, what: string): void {
  const lower = schema.toLowerCase();
  if (lower === BUILT_IN_SCHEMA || lower === 'information_schema' || lower.startsWith('pg_')) {
    refuse(
      'CATALOG_ACCESS',
      `SQL reads ${what} in the system schema ${schema}; tool queries may read only ${schemaList(policy)}.`
    );
  }
  if (!policy.schemas.has(schema)) {
    refuse(
      'SCHEMA_NOT_ALLOWED',
      `SQL reads ${what} in schema ${schema}; tool queries may read only ${schemaList(policy)}.`
    );
  }
}

function schemaList(policy: WalkPolicy): string {
  return [...policy.schemas].join(', ') || '(no schema)';
}

function checkRelation(body: AstObject, policy: WalkPolicy): void {
  if (body['catalogname'] !== undefined)
    refuse('SCHEMA_NOT_ALLOWED', 'SQL names another database; tool queries may not.');
  const relation = String(body['relname'] ?? '').toLowerCase();
  if (typeof body['schemaname'] === 'string') return checkSchema(body['schemaname'], policy, `relation ${relation}`);
  // Unqualified pg_* names resolve to pg_catalog, which is searched before any schema.
  if (relation.startsWith('pg_')) {
    refuse(
      'CATALOG_ACCESS',
      `SQL reads the system catalog relation ${relation}; tool queries may read only ${schemaList(policy)}.`
    );
  }
}

function checkColumnRef(body: AstObject, policy: WalkPolicy): void {
  const fields = Array.isArray(body['fields']) ? body['fields'] : [];
  if (fields.length > 3) refuse('SCHEMA_NOT_ALLOWED', 'SQL names another database; tool queries may not.');
  if (fields.length === 3) {
    const [type, first] = unwrap(fields[0]);
    if (type === 'String' && typeof first['sval'] === 'string') checkSchema(first['sval'], policy, 'a column');
  }
}

function checkFunction(body: AstObject, policy: WalkPolicy): void {
  // Exact names: PostgreSQL already folded unquoted ones to lower case; "LOWER" is another function.
  const parts = nameParts(body['funcname']);
  if (parts.length === 0 || parts.length > 2) refuse('UNSUPPORTED_SYNTAX', 'SQL calls a function by a malformed name.');
  const call: FunctionRef =
    parts.length === 2 ? { schema: parts[0] ?? null, name: parts[1] ?? '' } : { schema: null, name: parts[0] ?? '' };
  const verdict = functionVerdict(call, policy.functions);
  const name = formatFunctionRef(call);
  if (verdict === 'DENIED') {
    refuse(
      'DENIED_FUNCTION',
      `SQL calls ${name}, which ${deniedClassOf(call.name.toLowerCase()) ?? 'reaches outside the query'}; it is never allowed.`
    );
  }
  if (!policy.enforceFunctionList) return;
  if (verdict === 'BLOCKED') refuse('BLOCKED_FUNCTION', `SQL uses blocked function: ${name}.`);
  if (verdict === 'NOT_ALLOWED')
    refuse('FUNCTION_NOT_ALLOWED', `SQL uses function not present in the allowlist: ${name}.`);
}

function checkOperatorName(list: unknown): void {
  const parts = nameParts(list);
  const operator = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? parts[0] : BUILT_IN_SCHEMA;
  if (parts.length > 2 || schema !== BUILT_IN_SCHEMA || !ALLOWED_OPERATORS.has(operator)) {
    refuse(
      'OPERATOR_NOT_ALLOWED',
      `SQL uses operator ${parts.join('.')}, which is not a built-in operator tool queries may use.`
    );
  }
}

function checkExpression(body: AstObject): void {
  const kind = String(body['kind'] ?? '');
  if (!ALLOWED_EXPRESSION_KINDS.has(kind))
    refuse('UNSUPPORTED_SYNTAX', `SQL uses an expression form (${kind}) tool queries may not use.`);
  // BETWEEN's name is the keyword itself; it compares with the built-in >= and <=.
  if (!kind.includes('BETWEEN')) checkOperatorName(body['name']);
}

/** Names compared as PostgreSQL resolves them (checkSchema): `"INT4"` and `"PG_CATALOG".int4` are not int4. */
function checkType(body: AstObject, policy: WalkPolicy): void {
  const parts = nameParts(body['names']);
  const name = parts[parts.length - 1] ?? '';
  const schema = parts.length > 1 ? (parts[0] ?? '') : null;
  if (parts.length > 2 || parts.length === 0) refuse('TYPE_NOT_ALLOWED', 'SQL uses a malformed type name.');
  if (schema !== null && schema !== BUILT_IN_SCHEMA) return checkSchema(schema, policy, `type ${name}`);
  if (!ALLOWED_TYPES.has(name))
    refuse('TYPE_NOT_ALLOWED', `SQL uses type ${name.toUpperCase()}, which tool queries may not use.`);
}

function statementName(type: string): string {
  return STATEMENT_NAMES[type] ?? type.replace(/Stmt$/, '').toUpperCase();
}

/** A SELECT that writes (INTO) or locks rows (FOR UPDATE…) is refused with the clause named. */
function checkSelect(body: AstObject): void {
  if (body['intoClause'] !== undefined) {
    refuse('SELECT_INTO', 'SQL uses SELECT INTO, which creates a table; read-only queries may not write.');
  }
  const locks = body['lockingClause'];
  if (Array.isArray(locks) && locks.length > 0) {
    const [, lock] = unwrap(locks[0]);
    const clause = LOCK_CLAUSES[String(lock['strength'])] ?? 'FOR UPDATE';
    refuse('ROW_LOCK', `SQL uses a row-locking clause (${clause}); read-only queries may not lock rows.`);
  }
}

function checkCte(body: AstObject): void {
  const query = body['ctequery'];
  if (!isAstObject(query)) return;
  const [type] = unwrap(query);
  if (type !== 'SelectStmt') {
    const name = String(body['ctename'] ?? '?');
    refuse(
      'DATA_MODIFYING_CTE',
      `WITH clause "${name}" contains a data-modifying ${statementName(type)} statement; CTEs must be read-only.`
    );
  }
}

export function statementKindName(type: string): string {
  return statementName(type);
}

const RULES: Readonly<Record<string, (body: AstObject, policy: WalkPolicy) => void>> = {
  SelectStmt: checkSelect,
  CommonTableExpr: checkCte,
  RangeVar: checkRelation,
  ColumnRef: checkColumnRef,
  FuncCall: checkFunction,
  A_Expr: checkExpression,
  TypeName: checkType,
  SubLink: (body) => {
    if (!ALLOWED_SUBLINK_TYPES.has(String(body['subLinkType'])))
      refuse('UNSUPPORTED_SYNTAX', 'SQL uses a subquery form tool queries may not use.');
    if (body['operName'] !== undefined) checkOperatorName(body['operName']);
  },
  SortBy: (body) => {
    if (body['useOp'] !== undefined) checkOperatorName(body['useOp']);
  },
  SQLValueFunction: (body) => {
    const op = String(body['op'] ?? '');
    if (!ALLOWED_SQL_VALUE_FUNCTIONS.has(op)) {
      refuse(
        'DENIED_FUNCTION',
        `SQL reads ${op.replace(/^SVFOP_/, '')}, session information tool queries may not read.`
      );
    }
  },
};

export function checkNodeRules(type: string, body: AstObject, policy: WalkPolicy): void {
  RULES[type]?.(body, policy);
}
