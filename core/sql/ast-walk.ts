import { NODE_SPECS, type FieldKind } from './ast-spec';
import { checkNodeRules, type WalkPolicy } from './ast-rules';
import { isAstObject, isScalar, unsupported, unwrap, type AstObject } from './ast-node';

/** Deeper than any real query; a bound keeps a hostile nesting from exhausting the stack. */
const MAX_DEPTH = 400;

/**
 * Walks PostgreSQL's parse tree of a tool query against the allow-list in ast-spec.ts: every node
 * and every field is visited, in every clause and at every depth, and the first thing that is not
 * allowed ends the walk with a refusal. Fail closed: an unknown node type, an unknown field or a
 * value of the wrong shape is refused, never skipped.
 */
export class AstWalker {
  constructor(private readonly policy: WalkPolicy) {}

  node(node: unknown, depth: number): void {
    const [type, body] = unwrap(node);
    this.body(type, body, depth);
  }

  body(type: string, body: AstObject, depth: number): void {
    if (depth > MAX_DEPTH) unsupported('expressions nested too deeply');
    const spec = NODE_SPECS[type];
    if (!spec) unsupported(syntaxName(type));
    checkNodeRules(type, body, this.policy);
    for (const [field, value] of Object.entries(body)) {
      const kind = spec[field];
      if (kind === undefined) unsupported(`${syntaxName(type)} with ${field}`);
      this.field(kind, value, depth + 1, `${syntaxName(type)} ${field}`);
    }
  }

  private field(kind: FieldKind, value: unknown, depth: number, where: string): void {
    if (kind === 'scalar') {
      if (!isScalar(value)) unsupported(`an unexpected value in ${where}`);
    } else if (kind === 'scalars') {
      if (!isAstObject(value) || !Object.values(value).every(isScalar)) unsupported(`an unexpected value in ${where}`);
    } else if (kind === 'node') {
      this.node(value, depth);
    } else if (kind === 'nodes') {
      if (!Array.isArray(value)) return unsupported(`an unexpected value in ${where}`);
      // `{}` is libpg_query's empty list slot (e.g. no column definitions for a FROM function).
      for (const item of value) if (!(isAstObject(item) && Object.keys(item).length === 0)) this.node(item, depth);
    } else {
      if (!isAstObject(value)) unsupported(`an unexpected value in ${where}`);
      this.body(kind.inline, value, depth);
    }
  }
}

/** `RangeTableSample` → "RANGE TABLE SAMPLE syntax", readable enough for a config author. */
function syntaxName(type: string): string {
  const spaced = type
    .replace(/Stmt$/, ' statement')
    .replace(/_/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2');
  return `${spaced.toUpperCase()} syntax`;
}
