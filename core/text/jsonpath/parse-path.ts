import { JsonPathSyntaxError, PATH_FUNCTIONS, type ParsedPath, type PathFunctionName, type PathSegment } from './ast';
import { Cursor } from './cursor';
import { parseFilterExpression } from './parse-filter';

// Characters that end a dotted property name. Inside a filter, operators and quotes end it too.
const NAME_STOP = /[.[\]()\s]/;
const NAME_STOP_IN_FILTER = /[.[\]()\s=!<>&|,'"~]/;

/**
 * Parses a Jayway JSONPath. Like Jayway, a path that does not start with `$` or `@` is read as
 * `$.<path>`. Throws JsonPathSyntaxError naming the problem and its position.
 */
export function parseJsonPath(text: string): ParsedPath {
  const trimmed = text.trim();
  if (trimmed === '') throw new JsonPathSyntaxError(text, 0, 'the path is empty');
  const source = trimmed.startsWith('$') || trimmed.startsWith('@') ? trimmed : `$.${trimmed}`;
  const cursor = new Cursor(source);
  const path = parsePathAt(cursor, false);
  if (!cursor.done) throw cursor.error(`unexpected "${cursor.peek()}"`);
  return path;
}

/** Parses a path starting at the cursor (`$…` or `@…`); inside a filter it stops at the first non-path character. */
export function parsePathAt(cursor: Cursor, inFilter: boolean): ParsedPath {
  const root = cursor.peek();
  if (root !== '$' && root !== '@') throw cursor.error('a path must start with "$" or "@"');
  cursor.pos++;
  const segments: PathSegment[] = [];
  while (!cursor.done) {
    const ch = cursor.peek();
    if (ch !== '.' && ch !== '[') {
      if (inFilter) break;
      throw cursor.error(`unexpected "${ch}"`);
    }
    if (segments.at(-1)?.kind === 'function')
      throw cursor.error('a function such as length() must be the last segment');
    if (cursor.eat('..')) {
      segments.push({ kind: 'deepScan' });
      segments.push(parseAfterDot(cursor, inFilter, true));
    } else if (cursor.eat('.')) {
      segments.push(parseAfterDot(cursor, inFilter, false));
    } else {
      segments.push(parseBracket(cursor));
    }
  }
  return { root, segments, definite: segments.every(isDefiniteSegment) };
}

function isDefiniteSegment(segment: PathSegment): boolean {
  if (segment.kind === 'property') return segment.names.length === 1;
  if (segment.kind === 'index') return segment.indices.length === 1;
  return segment.kind === 'function';
}

function parseAfterDot(cursor: Cursor, inFilter: boolean, afterDeepScan: boolean): PathSegment {
  if (cursor.done || cursor.peek() === '.') throw cursor.error('a path must not end with "." or ".."');
  if (cursor.peek() === '[') {
    if (afterDeepScan) return parseBracket(cursor);
    throw cursor.error('unexpected "[" after "."');
  }
  if (cursor.eat('*')) return { kind: 'wildcard' };
  const start = cursor.pos;
  const stop = inFilter ? NAME_STOP_IN_FILTER : NAME_STOP;
  while (!cursor.done && !stop.test(cursor.peek())) cursor.pos++;
  const name = cursor.text.slice(start, cursor.pos);
  if (name === '') throw cursor.error('expected a property name after "."');
  if (!cursor.eat('(')) return { kind: 'property', names: [name] };
  cursor.skipSpaces();
  cursor.expect(')', '")" (path functions take no arguments)');
  if (!(PATH_FUNCTIONS as readonly string[]).includes(name)) {
    throw cursor.error(`unknown function ${name}() (known: ${PATH_FUNCTIONS.join(', ')})`);
  }
  return { kind: 'function', name: name as PathFunctionName };
}

function parseBracket(cursor: Cursor): PathSegment {
  cursor.expect('[');
  cursor.skipSpaces();
  let segment: PathSegment;
  const ch = cursor.peek();
  if (cursor.eat('*')) {
    segment = { kind: 'wildcard' };
  } else if (cursor.eat('?')) {
    cursor.skipSpaces();
    cursor.expect('(', '"(" after "?"');
    const expression = cursor.nested(() => parseFilterExpression(cursor, parsePathAt));
    cursor.skipSpaces();
    cursor.expect(')', 'a closing ")" for the filter');
    segment = { kind: 'filter', expression };
  } else if (ch === "'" || ch === '"') {
    segment = { kind: 'property', names: parseQuotedNames(cursor) };
  } else if (ch === '(') {
    throw cursor.error('script expressions "[(…)]" are not supported');
  } else {
    segment = parseIndexOrSlice(cursor);
  }
  cursor.skipSpaces();
  cursor.expect(']', 'a closing "]"');
  return segment;
}

function parseQuotedNames(cursor: Cursor): string[] {
  const names = [cursor.readQuoted()];
  for (cursor.skipSpaces(); cursor.eat(','); cursor.skipSpaces()) {
    cursor.skipSpaces();
    const quote = cursor.peek();
    if (quote !== "'" && quote !== '"') throw cursor.error('expected a quoted property name after ","');
    names.push(cursor.readQuoted());
  }
  return names;
}

function parseIndexOrSlice(cursor: Cursor): PathSegment {
  const first = cursor.readInteger();
  cursor.skipSpaces();
  if (cursor.eat(':')) {
    cursor.skipSpaces();
    const end = cursor.readInteger();
    cursor.skipSpaces();
    let step: number | null = null;
    if (cursor.eat(':')) {
      cursor.skipSpaces();
      step = cursor.readInteger();
      if (step === 0) throw cursor.error('a slice step must not be 0');
    }
    return { kind: 'slice', start: first, end, step };
  }
  if (first === null) throw cursor.error('expected an index, a quoted name, "*" or "?(" inside "[]"');
  const indices = [first];
  for (cursor.skipSpaces(); cursor.eat(','); cursor.skipSpaces()) {
    cursor.skipSpaces();
    const next = cursor.readInteger();
    if (next === null) throw cursor.error('expected an index after ","');
    indices.push(next);
  }
  return { kind: 'index', indices };
}
