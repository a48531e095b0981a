import type { Json } from '../../json';
import { checkUserRegex } from '../regex';
import {
  COMPARISON_OPERATORS,
  type ComparisonOperator,
  type FilterExpression,
  type FilterOperand,
  type ParsedPath,
} from './ast';
import type { Cursor } from './cursor';

/** Injected to avoid a module cycle: paths contain filters and filters contain paths. */
export type PathParser = (cursor: Cursor, inFilter: boolean) => ParsedPath;

const SYMBOL_OPERATORS: readonly ComparisonOperator[] = ['==', '!=', '<=', '>=', '=~', '<', '>'];
const WORD_OPERATOR = /^(nin|in|subsetof|anyof|noneof|size|empty|contains)(?![A-Za-z0-9_])/i;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/;

/**
 * Parses the inside of `[?( … )]`: `||`, `&&`, `!`, parentheses, and relations `<operand> <op>
 * <operand>` with Jayway's operators; a bare path is an existence check.
 */
export function parseFilterExpression(cursor: Cursor, parsePath: PathParser): FilterExpression {
  return parseOr(cursor, parsePath);
}

function parseOr(cursor: Cursor, parsePath: PathParser): FilterExpression {
  let left = parseAnd(cursor, parsePath);
  for (cursor.skipSpaces(); cursor.eat('||'); cursor.skipSpaces()) {
    left = { type: 'or', left, right: parseAnd(cursor, parsePath) };
  }
  return left;
}

function parseAnd(cursor: Cursor, parsePath: PathParser): FilterExpression {
  let left = parseUnary(cursor, parsePath);
  for (cursor.skipSpaces(); cursor.eat('&&'); cursor.skipSpaces()) {
    left = { type: 'and', left, right: parseUnary(cursor, parsePath) };
  }
  return left;
}

function parseUnary(cursor: Cursor, parsePath: PathParser): FilterExpression {
  cursor.skipSpaces();
  if (cursor.peek() === '!' && cursor.peek(1) !== '=') {
    cursor.pos++;
    return { type: 'not', expression: cursor.nested(() => parseUnary(cursor, parsePath)) };
  }
  if (cursor.eat('(')) {
    const inner = cursor.nested(() => parseOr(cursor, parsePath));
    cursor.skipSpaces();
    cursor.expect(')', 'a closing ")"');
    return inner;
  }
  return parseRelation(cursor, parsePath);
}

function parseRelation(cursor: Cursor, parsePath: PathParser): FilterExpression {
  const left = parseOperand(cursor, parsePath);
  cursor.skipSpaces();
  const operator = readOperator(cursor);
  if (operator === null) {
    if (left.type === 'path') return { type: 'exists', path: left.path };
    if (left.type === 'literal') return { type: 'literal', value: left.value };
    throw cursor.error('a regular expression must follow "=~"');
  }
  cursor.skipSpaces();
  const at = cursor.pos;
  const right = parseOperand(cursor, parsePath);
  if (operator === '=~' && right.type !== 'regex') {
    cursor.pos = at;
    throw cursor.error('"=~" needs a regular expression such as /abc/i');
  }
  return { type: 'compare', operator, left, right };
}

function readOperator(cursor: Cursor): ComparisonOperator | null {
  if (cursor.startsWith('===') || cursor.startsWith('!=='))
    throw cursor.error('use "==" or "!=" ("===" is not JSONPath)');
  for (const op of SYMBOL_OPERATORS) if (cursor.eat(op)) return op;
  if (cursor.peek() === '=') throw cursor.error('use "==" to compare ("=" alone is not an operator)');
  const word = WORD_OPERATOR.exec(cursor.text.slice(cursor.pos));
  if (!word) return null;
  cursor.pos += word[0].length;
  const op = (word[1] as string).toLowerCase();
  return (COMPARISON_OPERATORS as readonly string[]).includes(op) ? (op as ComparisonOperator) : null;
}

function parseOperand(cursor: Cursor, parsePath: PathParser): FilterOperand {
  cursor.skipSpaces();
  const ch = cursor.peek();
  if (ch === '@' || ch === '$') return { type: 'path', path: parsePath(cursor, true) };
  if (ch === '/') return parseRegex(cursor);
  if (ch === '{') throw cursor.error('object literals are not supported in filters');
  return { type: 'literal', value: parseLiteral(cursor) };
}

function parseLiteral(cursor: Cursor): Json {
  cursor.skipSpaces();
  const ch = cursor.peek();
  if (ch === "'" || ch === '"') return cursor.readQuoted();
  if (ch === '[') return cursor.nested(() => parseList(cursor));
  const number = NUMBER.exec(cursor.text.slice(cursor.pos));
  if (number) {
    cursor.pos += number[0].length;
    return Number(number[0]);
  }
  for (const [word, value] of [
    ['true', true],
    ['false', false],
    ['null', null],
  ] as const) {
    if (cursor.eat(word)) return value;
  }
  throw cursor.error(
    cursor.done
      ? 'the filter ended where a value was expected'
      : `expected a value (a path, 'string', number, true, false, null, /regex/ or [list]) but found "${ch}"`
  );
}

function parseList(cursor: Cursor): Json[] {
  cursor.expect('[');
  const items: Json[] = [];
  cursor.skipSpaces();
  if (cursor.eat(']')) return items;
  do {
    items.push(parseLiteral(cursor));
    cursor.skipSpaces();
  } while (cursor.eat(','));
  cursor.expect(']', 'a closing "]" for the list');
  return items;
}

function parseRegex(cursor: Cursor): FilterOperand {
  const start = cursor.pos;
  cursor.pos++;
  let source = '';
  while (!cursor.done && cursor.peek() !== '/') {
    if (cursor.peek() === '\\') source += cursor.text[cursor.pos++];
    source += cursor.text[cursor.pos++] ?? '';
  }
  if (cursor.done) {
    cursor.pos = start;
    throw cursor.error('unterminated regular expression (missing closing "/")');
  }
  cursor.pos++;
  const flags = /^[imsx]*/.exec(cursor.text.slice(cursor.pos))?.[0] ?? '';
  cursor.pos += flags.length;
  const reason = checkUserRegex(flags ? `(?${flags})${source}` : source);
  if (reason !== null) {
    cursor.pos = start;
    throw cursor.error(reason);
  }
  return { type: 'regex', source, flags };
}
