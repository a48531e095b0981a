/** ListWorkflowExecutions / CountWorkflowExecutions over the in-memory runs. */
import { invalidArgument } from '../errors';
import { enums, type Message } from '../proto/types';
import { executionInfo } from './describe';
import type { Engine } from './engine';
import { decodeSearchAttribute, type SearchAttributeType, type SearchAttributeValue } from './search-attributes';
import { eventCount, type RunState } from './state';
import {
  parseVisibilityQuery,
  referencedFields,
  type FilterExpression,
  type Literal,
  type ParsedQuery,
} from './visibility-query';

const S = enums.WorkflowExecutionStatus;
const STATUS_NAMES: Record<number, string> = {
  [S.WORKFLOW_EXECUTION_STATUS_RUNNING]: 'Running',
  [S.WORKFLOW_EXECUTION_STATUS_COMPLETED]: 'Completed',
  [S.WORKFLOW_EXECUTION_STATUS_FAILED]: 'Failed',
  [S.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'Canceled',
  [S.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'Terminated',
  [S.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW]: 'ContinuedAsNew',
  [S.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'TimedOut',
};
const DEFAULT_PAGE_SIZE = 1000;

type Row = (field: string) => SearchAttributeValue | undefined;

function systemValue(run: RunState, field: string): SearchAttributeValue | undefined {
  switch (field) {
    case 'WorkflowId':
      return run.workflowId;
    case 'RunId':
      return run.runId;
    case 'WorkflowType':
      return run.workflowType;
    case 'ExecutionStatus':
      return STATUS_NAMES[run.status] ?? null;
    case 'TaskQueue':
      return run.taskQueue;
    case 'StartTime':
      return run.startTime;
    case 'CloseTime':
      return run.closeTime ?? null;
    case 'ExecutionTime':
      return run.executionTime;
    case 'ExecutionDuration':
      return run.closeTime === undefined ? null : (run.closeTime - run.executionTime) * 1e6;
    case 'HistoryLength':
    case 'StateTransitionCount':
      return eventCount(run);
    case 'HistorySizeBytes':
      return run.historySizeBytes;
    default:
      return undefined;
  }
}

function rowOf(engine: Engine, run: RunState): Row {
  return (field) => {
    const system = systemValue(run, field);
    if (system !== undefined) return system;
    const payload = run.searchAttributes[field];
    const type = engine.searchAttributes.typeOf(field);
    if (!payload || !type) return null;
    const value = decodeSearchAttribute(payload, type);
    return value instanceof Error ? null : value;
  };
}

/** Converts a literal to the attribute's domain (Datetime → epoch ms, ExecutionStatus → canonical name). */
function coerceLiteral(field: string, type: SearchAttributeType, literal: Literal): string | number | boolean {
  if (field === 'ExecutionStatus') {
    const name = Object.values(STATUS_NAMES).find((n) => n.toLowerCase() === String(literal).toLowerCase());
    if (!name) throw invalidArgument(`invalid query: unknown ExecutionStatus ${String(literal)}`);
    return name;
  }
  switch (type) {
    case 'Int':
    case 'Double': {
      const value = Number(literal);
      if (typeof literal === 'boolean' || Number.isNaN(value))
        throw invalidArgument(`invalid query: ${field} expects a number`);
      return value;
    }
    case 'Bool':
      if (typeof literal === 'boolean') return literal;
      if (String(literal).toLowerCase() === 'true' || String(literal).toLowerCase() === 'false') {
        return String(literal).toLowerCase() === 'true';
      }
      throw invalidArgument(`invalid query: ${field} expects true or false`);
    case 'Datetime': {
      // Numbers are epoch nanoseconds, as in Temporal's SQL visibility.
      const ms = typeof literal === 'number' ? literal / 1e6 : Date.parse(String(literal));
      if (Number.isNaN(ms)) throw invalidArgument(`invalid query: ${field} expects an RFC 3339 timestamp`);
      return ms;
    }
    default:
      return String(literal);
  }
}

function compare(
  value: SearchAttributeValue | undefined,
  operator: string,
  literal: string | number | boolean,
  type: SearchAttributeType
): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) {
    const contains = value.includes(String(literal));
    if (operator === '=') return contains;
    if (operator === '!=') return !contains;
    return false;
  }
  if (type === 'Text' && (operator === '=' || operator === '!=')) {
    const contains = String(value).toLowerCase().includes(String(literal).toLowerCase());
    return operator === '=' ? contains : !contains;
  }
  switch (operator) {
    case '=':
      return value === literal;
    case '!=':
      return value !== literal;
    case '<':
      return value < literal;
    case '>':
      return value > literal;
    case '<=':
      return value <= literal;
    case '>=':
      return value >= literal;
    default:
      return false;
  }
}

function evaluate(engine: Engine, expression: FilterExpression, row: Row): boolean {
  switch (expression.kind) {
    case 'and':
      return evaluate(engine, expression.left, row) && evaluate(engine, expression.right, row);
    case 'or':
      return evaluate(engine, expression.left, row) || evaluate(engine, expression.right, row);
    case 'not':
      return !evaluate(engine, expression.operand, row);
    default:
      return evaluatePredicate(engine, expression, row);
  }
}

function evaluatePredicate(
  engine: Engine,
  expression: Exclude<FilterExpression, { kind: 'and' | 'or' | 'not' }>,
  row: Row
): boolean {
  const type = engine.searchAttributes.typeOf(expression.field) as SearchAttributeType;
  const value = row(expression.field);
  const coerce = (literal: Literal): string | number | boolean => coerceLiteral(expression.field, type, literal);
  switch (expression.kind) {
    case 'compare':
      return compare(value, expression.operator, coerce(expression.value), type);
    case 'in': {
      const found = expression.values.some((literal) => compare(value, '=', coerce(literal), type));
      return value !== null && value !== undefined && found !== expression.negated;
    }
    case 'between': {
      const inside =
        compare(value, '>=', coerce(expression.low), type) && compare(value, '<=', coerce(expression.high), type);
      return value !== null && value !== undefined && inside !== expression.negated;
    }
    case 'null':
      return (value === null || value === undefined) !== expression.negated;
    case 'startsWith':
      return typeof value === 'string' && value.startsWith(String(coerce(expression.prefix)));
  }
}

function parseAndValidate(engine: Engine, query: string | undefined): ParsedQuery {
  const parsed = parseVisibilityQuery(query);
  for (const field of referencedFields(parsed)) {
    if (!engine.searchAttributes.typeOf(field))
      throw invalidArgument(`invalid query: unknown search attribute ${field}`);
  }
  if (parsed.groupBy !== undefined && parsed.groupBy !== 'ExecutionStatus') {
    throw invalidArgument('invalid query: GROUP BY is only supported on ExecutionStatus');
  }
  return parsed;
}

function matchingRuns(engine: Engine, parsed: ParsedQuery): RunState[] {
  const runs: RunState[] = [];
  for (const run of engine.runs.values()) {
    if (!parsed.filter || evaluate(engine, parsed.filter, rowOf(engine, run))) runs.push(run);
  }
  return runs;
}

function sortRuns(engine: Engine, runs: RunState[], parsed: ParsedQuery): void {
  if (parsed.orderBy.length === 0) {
    // Same default as Temporal's SQL visibility: open runs first, then by close time, newest first.
    runs.sort(
      (a, b) =>
        (b.closeTime ?? Infinity) - (a.closeTime ?? Infinity) ||
        b.startTime - a.startTime ||
        (a.runId < b.runId ? -1 : 1)
    );
    return;
  }
  runs.sort((a, b) => {
    for (const { field, descending } of parsed.orderBy) {
      const left = rowOf(engine, a)(field) ?? null;
      const right = rowOf(engine, b)(field) ?? null;
      if (left === right) continue;
      const order = left === null ? 1 : right === null ? -1 : left < right ? -1 : 1;
      return descending ? -order : order;
    }
    return a.runId < b.runId ? -1 : 1;
  });
}

export interface ListRequest {
  pageSize?: number;
  nextPageToken?: Uint8Array;
  query?: string;
}

export function listWorkflowExecutions(engine: Engine, request: ListRequest): Message {
  const parsed = parseAndValidate(engine, request.query);
  const runs = matchingRuns(engine, parsed);
  sortRuns(engine, runs, parsed);
  const offset = request.nextPageToken?.length ? Number(Buffer.from(request.nextPageToken).toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('Invalid NextPageToken.');
  const pageSize = request.pageSize && request.pageSize > 0 ? request.pageSize : DEFAULT_PAGE_SIZE;
  const pageRuns = runs.slice(offset, offset + pageSize);
  const next = offset + pageRuns.length;
  return {
    executions: pageRuns.map(executionInfo),
    nextPageToken: next < runs.length ? Buffer.from(String(next)) : undefined,
  };
}

export function countWorkflowExecutions(engine: Engine, request: { query?: string }): Message {
  const parsed = parseAndValidate(engine, request.query);
  const runs = matchingRuns(engine, parsed);
  if (!parsed.groupBy) return { count: runs.length };
  const counts = new Map<string, number>();
  for (const run of runs) {
    const status = STATUS_NAMES[run.status] ?? 'Unspecified';
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  return {
    count: runs.length,
    groups: [...counts].map(([status, count]) => ({
      groupValues: [
        {
          metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from('Keyword') },
          data: Buffer.from(JSON.stringify(status)),
        },
      ],
      count,
    })),
  };
}
