import { canonicalJson, type Json } from '../../json';
import { compileUserRegex, isUserRegex, matchesEntire, type UserRegex } from '../regex';
import type { ComparisonOperator, FilterExpression, FilterOperand, ParsedPath } from './ast';

/** Evaluates a path from a filter; returns every value it addresses (Jayway ALWAYS_RETURN_LIST). */
export type FilterPathEvaluator = (path: ParsedPath, current: Json, root: Json) => Json[];

/** A definite path that addresses nothing. Compares equal to null, like Jayway's missing leaf. */
const MISSING = Symbol('missing');
type OperandValue = Json | UserRegex | typeof MISSING;

/**
 * Evaluates a filter against one candidate node. Pure data comparisons only: no script, no method
 * calls, so a config author's filter can never run code (P5).
 */
export function evaluateFilter(
  expression: FilterExpression,
  current: Json,
  root: Json,
  evaluatePath: FilterPathEvaluator
): boolean {
  switch (expression.type) {
    case 'or':
      return chainOperands(expression).some((operand) => evaluateFilter(operand, current, root, evaluatePath));
    case 'and':
      return chainOperands(expression).every((operand) => evaluateFilter(operand, current, root, evaluatePath));
    case 'not':
      return !evaluateFilter(expression.expression, current, root, evaluatePath);
    case 'exists':
      return evaluatePath(expression.path, current, root).length > 0;
    case 'literal':
      return expression.value === true;
    case 'compare': {
      const left = operandValue(expression.left, current, root, evaluatePath);
      const right = operandValue(expression.right, current, root, evaluatePath);
      return compare(expression.operator, left, right);
    }
  }
}

type Chain = Extract<FilterExpression, { type: 'or' | 'and' }>;

/**
 * `a || b || c` in order. The parser builds a chain left-deep, one level per operator, so it is walked in a loop
 * rather than recursed into: a long chain would exhaust the stack (nesting is bounded, chain length is not).
 */
function chainOperands(chain: Chain): FilterExpression[] {
  const operands: FilterExpression[] = [];
  let node: FilterExpression = chain;
  while ((node.type === 'or' || node.type === 'and') && node.type === chain.type) {
    operands.push(node.right);
    node = node.left;
  }
  operands.push(node);
  return operands.reverse();
}

function operandValue(
  operand: FilterOperand,
  current: Json,
  root: Json,
  evaluatePath: FilterPathEvaluator
): OperandValue {
  if (operand.type === 'literal') return operand.value;
  if (operand.type === 'regex') return cachedRegex(operand.source, operand.flags);
  const values = evaluatePath(operand.path, current, root);
  if (!operand.path.definite) return values;
  return values.length > 0 ? (values[0] as Json) : MISSING;
}

const regexCache = new Map<string, UserRegex>();

function cachedRegex(source: string, flags: string): UserRegex {
  const key = `${flags}/${source}`;
  let re = regexCache.get(key);
  if (!re) {
    if (regexCache.size >= 256) regexCache.clear();
    re = compileUserRegex(flags ? `(?${flags})${source}` : source);
    regexCache.set(key, re);
  }
  return re;
}

function isNullish(value: OperandValue): boolean {
  return value === null || value === MISSING;
}

function valuesEqual(a: OperandValue, b: OperandValue): boolean {
  if (isNullish(a) || isNullish(b)) return isNullish(a) && isNullish(b);
  if (isUserRegex(a) || isUserRegex(b)) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

function ordered(a: OperandValue, b: OperandValue): number | null {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function lengthOf(value: OperandValue): number | null {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  return null;
}

function compare(operator: ComparisonOperator, left: OperandValue, right: OperandValue): boolean {
  switch (operator) {
    case '==':
      return valuesEqual(left, right);
    case '!=':
      return !valuesEqual(left, right);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compareOrdered(operator, ordered(left, right));
    case '=~':
      return typeof left === 'string' && isUserRegex(right) && matchesEntire(right, left);
    case 'in':
      return Array.isArray(right) && right.some((item) => valuesEqual(left, item));
    case 'nin':
      return Array.isArray(right) && !right.some((item) => valuesEqual(left, item));
    default:
      return compareCollections(operator, left, right);
  }
}

function compareOrdered(operator: '<' | '<=' | '>' | '>=', diff: number | null): boolean {
  if (diff === null) return false;
  if (operator === '<') return diff < 0;
  if (operator === '<=') return diff <= 0;
  if (operator === '>') return diff > 0;
  return diff >= 0;
}

function compareCollections(operator: ComparisonOperator, left: OperandValue, right: OperandValue): boolean {
  const contains = (list: Json[], item: OperandValue) => list.some((x) => valuesEqual(x, item));
  switch (operator) {
    case 'subsetof':
      return Array.isArray(left) && Array.isArray(right) && left.every((x) => contains(right, x));
    case 'anyof':
      return Array.isArray(left) && Array.isArray(right) && left.some((x) => contains(right, x));
    case 'noneof':
      return Array.isArray(left) && Array.isArray(right) && !left.some((x) => contains(right, x));
    case 'size':
      return lengthOf(left) !== null && lengthOf(left) === right;
    case 'empty':
      return lengthOf(left) !== null && typeof right === 'boolean' && (lengthOf(left) === 0) === right;
    case 'contains':
      if (typeof left === 'string') return typeof right === 'string' && left.includes(right);
      return Array.isArray(left) && contains(left, right);
    default:
      return false;
  }
}
