import type { Statement } from 'pgsql-ast-parser';
import type { FunctionRef } from './functions';

/**
 * Walks a parsed statement and reports what makes it unsafe for read-only execution: a statement
 * that is not a query, a data-modifying CTE, a row-locking clause, and every function it calls.
 */
export type AstProblem =
  | { code: 'NOT_READ_ONLY'; kind: string }
  | { code: 'DATA_MODIFYING_CTE'; cte: string; kind: string }
  | { code: 'ROW_LOCK'; clause: string };

const QUERY_TYPES = new Set(['select', 'union', 'union all', 'intersect', 'intersect all', 'except', 'except all']);
const QUERY_OR_VALUES = new Set([...QUERY_TYPES, 'values']);
const WRITE_TYPE = /^(insert|update|delete|merge|create|drop|alter|truncate|do|set|comment|refresh|grant|revoke)\b/;

type Node = Record<string, unknown>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeOf(node: unknown): string {
  return isNode(node) && typeof node['type'] === 'string' ? node['type'] : '';
}

function kindName(type: string): string {
  return type.toUpperCase();
}

/** The statement-level shape: a query, or WITH binds that are all queries around a query. */
function statementProblem(statement: unknown): AstProblem | null {
  const type = typeOf(statement);
  if (QUERY_OR_VALUES.has(type)) return null;
  if (type === 'with' || type === 'with recursive') return withProblem(statement as Node);
  return { code: 'NOT_READ_ONLY', kind: kindName(type || 'UNKNOWN') };
}

function withProblem(node: Node): AstProblem | null {
  const binds: { name: string; statement: unknown }[] = [];
  if (node['type'] === 'with recursive') {
    binds.push({ name: aliasName(node['alias']), statement: node['bind'] });
  } else if (Array.isArray(node['bind'])) {
    for (const bind of node['bind'] as Node[])
      binds.push({ name: aliasName(bind['alias']), statement: bind['statement'] });
  }
  for (const bind of binds) {
    const problem = statementProblem(bind.statement);
    if (problem?.code === 'NOT_READ_ONLY') return { code: 'DATA_MODIFYING_CTE', cte: bind.name, kind: problem.kind };
    if (problem) return problem;
  }
  return statementProblem(node['in']);
}

function aliasName(alias: unknown): string {
  return isNode(alias) && typeof alias['name'] === 'string' ? alias['name'] : '?';
}

interface WalkResult {
  problem: AstProblem | null;
  calls: FunctionRef[];
}

function visit(node: Node, out: WalkResult): void {
  const type = typeOf(node);
  if (type === 'call' && isNode(node['function'])) {
    const fn = node['function'];
    const schema = typeof fn['schema'] === 'string' ? fn['schema'].toLowerCase() : null;
    out.calls.push({ schema, name: String(fn['name']).toLowerCase() });
  }
  if (type === 'select' && isNode(node['for']) && !out.problem) {
    out.problem = { code: 'ROW_LOCK', clause: `FOR ${String(node['for']['type']).toUpperCase()}` };
  }
  if (WRITE_TYPE.test(type) && !out.problem) out.problem = { code: 'NOT_READ_ONLY', kind: kindName(type) };
}

/** Depth-first over every object in the AST; the locking clause object is checked, not walked. */
function walk(value: unknown, out: WalkResult): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, out);
    return;
  }
  if (!isNode(value)) return;
  visit(value, out);
  for (const [key, child] of Object.entries(value)) {
    if (key !== 'for') walk(child, out);
  }
}

export function inspectStatement(statement: Statement): WalkResult {
  const out: WalkResult = { problem: statementProblem(statement), calls: [] };
  walk(statement, out);
  return out;
}
