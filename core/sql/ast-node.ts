/**
 * PostgreSQL parse-tree nodes as libpg_query serialises them (`{"TypeName": {field: value}}`), and
 * the refusal the guardrail's walk ends with.
 */
export type RefusalCode =
  | 'NOT_READ_ONLY'
  | 'DATA_MODIFYING_CTE'
  | 'SELECT_INTO'
  | 'ROW_LOCK'
  | 'DENIED_FUNCTION'
  | 'BLOCKED_FUNCTION'
  | 'FUNCTION_NOT_ALLOWED'
  | 'OPERATOR_NOT_ALLOWED'
  | 'TYPE_NOT_ALLOWED'
  | 'CATALOG_ACCESS'
  | 'SCHEMA_NOT_ALLOWED'
  | 'UNSUPPORTED_SYNTAX';

export class SqlRefusal extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly reason: string
  ) {
    super(reason);
    this.name = 'SqlRefusal';
  }
}

export type AstObject = Record<string, unknown>;

export function isAstObject(value: unknown): value is AstObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isScalar(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

export function unsupported(what: string): never {
  throw new SqlRefusal('UNSUPPORTED_SYNTAX', `SQL uses ${what}, which read-only tool queries may not use.`);
}

/** `{Type: body}` → [Type, body]; anything else is refused. */
export function unwrap(node: unknown): [string, AstObject] {
  if (!isAstObject(node)) return unsupported('a malformed expression');
  const keys = Object.keys(node);
  const type = keys[0];
  const body = type === undefined ? undefined : node[type];
  if (keys.length !== 1 || type === undefined || !isAstObject(body)) return unsupported('a malformed expression');
  return [type, body];
}
