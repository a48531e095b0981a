import type { Json } from '../../json';
import { cutText } from '../cut-text';

/**
 * Parsed form of a Jayway-style JSONPath (the dialect the seeds and the Java engine use). Paths
 * are parsed once, validated at config load (P5), and evaluated without ever running script code.
 */
export type PathSegment =
  /** `.name` or `['name']`; several names for `['a','b']`. */
  | { kind: 'property'; names: string[] }
  /** `[0]`, `[-1]`, `[0,2]`. */
  | { kind: 'index'; indices: number[] }
  /** `[start:end:step]`, any part optional. */
  | { kind: 'slice'; start: number | null; end: number | null; step: number | null }
  /** `.*` or `[*]`. */
  | { kind: 'wildcard' }
  /** `..`: the next segment applies to the node and every descendant. */
  | { kind: 'deepScan' }
  /** `[?(<expression>)]`. */
  | { kind: 'filter'; expression: FilterExpression }
  /** A trailing `.length()` style function. */
  | { kind: 'function'; name: PathFunctionName };

export const PATH_FUNCTIONS = ['length', 'size', 'min', 'max', 'avg', 'sum', 'first', 'last', 'keys'] as const;
export type PathFunctionName = (typeof PATH_FUNCTIONS)[number];

export interface ParsedPath {
  /** `$` = the document root; `@` = the node a filter is testing. */
  root: '$' | '@';
  segments: PathSegment[];
  /** Jayway "definite": addresses at most one node (no wildcard, deep scan, filter, slice or union). */
  definite: boolean;
}

export const COMPARISON_OPERATORS = [
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '=~',
  'in',
  'nin',
  'subsetof',
  'anyof',
  'noneof',
  'size',
  'empty',
  'contains',
] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export type FilterOperand =
  | { type: 'path'; path: ParsedPath }
  | { type: 'literal'; value: Json }
  | { type: 'regex'; source: string; flags: string };

export type FilterExpression =
  | { type: 'or'; left: FilterExpression; right: FilterExpression }
  | { type: 'and'; left: FilterExpression; right: FilterExpression }
  | { type: 'not'; expression: FilterExpression }
  /** A bare path: true when it addresses an existing node (Jayway existence check). */
  | { type: 'exists'; path: ParsedPath }
  /** A bare literal: true only for `true`. */
  | { type: 'literal'; value: Json }
  | { type: 'compare'; operator: ComparisonOperator; left: FilterOperand; right: FilterOperand };

const SHOWN_PATH_LENGTH = 200;

export class JsonPathSyntaxError extends Error {
  readonly type = 'INVALID_JSON_PATH';
  constructor(
    readonly path: string,
    readonly position: number,
    reason: string
  ) {
    // The path is cut in the message: a validation reason should not repeat a 40 KB path.
    const shown = path.length > SHOWN_PATH_LENGTH ? `${cutText(path, SHOWN_PATH_LENGTH)}…` : path;
    super(`invalid JSONPath "${shown}": ${reason} at position ${position}`);
    this.name = 'JsonPathSyntaxError';
  }
}
