import { JSONPath } from 'jsonpath-plus';
import { isJsonObject, type Json } from '../json';
import type { ParsedPath, PathFunctionName, PathSegment } from '../text/jsonpath/ast';
import { evaluateFilter } from '../text/jsonpath/evaluate-filter';
import { parseJsonPath } from '../text/jsonpath/parse-path';

/**
 * JSON_PATH rules with the Java engine's Jayway semantics (§3.3, scenario 18):
 * ALWAYS_RETURN_LIST + SUPPRESS_EXCEPTIONS, so an empty result is false, exactly one boolean is
 * that boolean, and any other non-empty result is true (`$.x` with x null → true, missing → false).
 * A filter applied to an object tests the object itself (Jayway on a map), so the seeds'
 * `$[?(@.context.mcp.lifecycle.error == true)]` tests the facts document root.
 *
 * Plain navigation (names, wildcards, deep scan, indices, slices) runs on jsonpath-plus with script
 * evaluation switched off; filters run on a data-only interpreter, so no path can execute code (P5).
 */

const PARSE_CACHE_LIMIT = 1000;
const parsed = new Map<string, ParsedPath | string>();

/** Parses with a cache; returns the syntax error's message instead of throwing. */
function parseCached(path: string): ParsedPath | string {
  let entry = parsed.get(path);
  if (entry === undefined) {
    try {
      entry = parseJsonPath(path);
    } catch (err) {
      entry = err instanceof Error ? err.message : String(err);
    }
    if (parsed.size >= PARSE_CACHE_LIMIT) parsed.clear();
    parsed.set(path, entry);
  }
  return entry;
}

/** Null when the path compiles; otherwise the reason, for config validation. */
export function checkJsonPath(path: string): string | null {
  const entry = parseCached(path);
  return typeof entry === 'string' ? entry : null;
}

/** Every value the path addresses in the document; [] for an invalid path (SUPPRESS_EXCEPTIONS). */
export function jsonPathValues(path: string, doc: Json): Json[] {
  const entry = parseCached(path);
  if (typeof entry === 'string') return [];
  return evaluatePath(entry, doc, doc);
}

/** The first value the path addresses (SET_JSON, HTTP JSON_PATH mappings), or undefined. */
export function firstJsonPathMatch(path: string, doc: Json): Json | undefined {
  return jsonPathValues(path, doc)[0];
}

/** The JSON_PATH rule outcome. */
export function evaluateJsonPathRule(path: string, doc: Json): boolean {
  const values = jsonPathValues(path, doc);
  if (values.length === 0) return false;
  if (values.length === 1 && typeof values[0] === 'boolean') return values[0];
  return true;
}

function evaluatePath(path: ParsedPath, current: Json, root: Json): Json[] {
  let nodes: Json[] = [path.root === '$' ? root : current];
  let definite = true;
  const segments = path.segments;
  for (let i = 0; i < segments.length;) {
    const segment = segments[i] as PathSegment;
    if (segment.kind === 'function') {
      nodes = applyFunction(segment.name, nodes, definite);
      i++;
      continue;
    }
    const runEnd = plainRunEnd(segments, i);
    if (runEnd > i) {
      const run = segments.slice(i, runEnd);
      nodes = nodes.flatMap((node) => navigatePlain(run, node));
      definite = definite && run.every(isSingleStep);
      i = runEnd;
    } else if (segment.kind === 'deepScan') {
      const next = segments[i + 1] as PathSegment;
      nodes = nodes.flatMap((node) => descendantsOrSelf(node)).flatMap((node) => applyStep(next, node, root, true));
      definite = false;
      i += 2;
    } else {
      nodes = nodes.flatMap((node) => applyStep(segment, node, root, false));
      definite = definite && isSingleStep(segment);
      i++;
    }
  }
  return nodes;
}

function isSingleStep(segment: PathSegment): boolean {
  return (
    (segment.kind === 'property' && segment.names.length === 1) ||
    (segment.kind === 'index' && segment.indices.length === 1)
  );
}

// Names jsonpath-plus would read as operators (`*`, `$`, `^`, `~`, `@…()`, unions) or that it
// cannot quote are navigated here instead; so are all-digit names (array indices to it).
const PLAIN_NAME = /^(?!\d+$)[^'"[\];~^`,@$*()?#%\\]+$/;

function isPlain(segment: PathSegment | undefined): boolean {
  if (!segment) return false;
  switch (segment.kind) {
    case 'property':
      return segment.names.length === 1 && PLAIN_NAME.test(segment.names[0] as string);
    case 'index':
      return segment.indices.length === 1 && (segment.indices[0] as number) >= 0;
    case 'wildcard':
    case 'slice':
      return true;
    default:
      return false;
  }
}

/** End (exclusive) of the run of segments starting at `start` that jsonpath-plus can navigate. */
function plainRunEnd(segments: readonly PathSegment[], start: number): number {
  let i = start;
  while (i < segments.length) {
    const segment = segments[i];
    if (segment?.kind === 'deepScan' && isPlain(segments[i + 1])) i += 2;
    else if (isPlain(segment)) i++;
    else break;
  }
  return i;
}

function plainSelector(segment: PathSegment): string {
  switch (segment.kind) {
    case 'property':
      return `['${segment.names[0] as string}']`;
    case 'index':
      return `[${segment.indices[0] as number}]`;
    case 'slice':
      return `[${segment.start ?? ''}:${segment.end ?? ''}${segment.step === null ? '' : `:${segment.step}`}]`;
    case 'deepScan':
      return '..';
    default:
      return '[*]';
  }
}

function navigatePlain(run: readonly PathSegment[], node: Json): Json[] {
  if (node === null || typeof node !== 'object') return [];
  const path = `$${run.map(plainSelector).join('')}`;
  const found: unknown = JSONPath({ path, json: node, wrap: true, eval: false, resultType: 'value' });
  return Array.isArray(found) ? (found as Json[]) : [];
}

function applyStep(segment: PathSegment, node: Json, root: Json, fromDeepScan: boolean): Json[] {
  switch (segment.kind) {
    case 'property':
      if (!isJsonObject(node)) return [];
      return segment.names.filter((name) => Object.hasOwn(node, name)).map((name) => node[name] as Json);
    case 'index':
      return Array.isArray(node) ? pickIndices(node, segment.indices) : [];
    case 'filter': {
      const test = (candidate: Json) => evaluateFilter(segment.expression, candidate, root, evaluatePath);
      if (Array.isArray(node)) return fromDeepScan ? [] : node.filter(test);
      return isJsonObject(node) && test(node) ? [node] : [];
    }
    default:
      return navigatePlain([segment], node);
  }
}

function pickIndices(list: Json[], indices: readonly number[]): Json[] {
  const out: Json[] = [];
  for (const index of indices) {
    const at = index < 0 ? list.length + index : index;
    if (at >= 0 && at < list.length) out.push(list[at] as Json);
  }
  return out;
}

/**
 * The node and every object/array below it, depth first (pre-order). Iterative with no spread: spreading a child's
 * list into push() passed one argument per value and overflowed the stack past about 125,000.
 */
function descendantsOrSelf(node: Json): Json[] {
  const out: Json[] = [];
  const pending: Json[] = [node];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next === null || typeof next !== 'object') continue;
    out.push(next);
    const children = Array.isArray(next) ? next : Object.values(next);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as Json);
  }
  return out;
}

function applyFunction(name: PathFunctionName, nodes: Json[], definite: boolean): Json[] {
  const input: Json | undefined = definite ? nodes[0] : nodes;
  if (input === undefined) return [];
  const numbers = Array.isArray(input) ? input.filter((x): x is number => typeof x === 'number') : [];
  switch (name) {
    case 'length':
    case 'size':
      if (Array.isArray(input) || typeof input === 'string') return [input.length];
      return isJsonObject(input) ? [Object.keys(input).length] : [];
    case 'keys':
      return isJsonObject(input) ? [Object.keys(input)] : [];
    case 'first':
      return Array.isArray(input) && input.length > 0 ? [input[0] as Json] : [];
    case 'last':
      return Array.isArray(input) && input.length > 0 ? [input[input.length - 1] as Json] : [];
    default:
      return numbers.length === 0 ? [] : [aggregate(name, numbers)];
  }
}

/** By reduce, not Math.min(...numbers): a spread passes one argument per number, past ~125,000 a RangeError. */
function aggregate(name: PathFunctionName, numbers: number[]): number {
  if (name === 'min') return numbers.reduce((a, b) => Math.min(a, b));
  if (name === 'max') return numbers.reduce((a, b) => Math.max(a, b));
  const sum = numbers.reduce((a, b) => a + b, 0);
  return name === 'sum' ? sum : sum / numbers.length;
}
