/**
 * Queries never touch history. With no workflow task in flight (or a closed run) a query goes out
 * as a legacy query task; otherwise it rides on the next workflow task (`queries`) and is answered
 * from the completion's `queryResults`.
 */
import { randomUUID } from 'node:crypto';
import { DevServerError, invalidArgument, taskNotFound } from '../errors';
import { enums, type Failure, type Message, type Payloads, type WorkflowExecutionRef } from '../proto/types';
import type { Engine, PendingQuery } from './engine';
import type { PollCall } from './matching';
import { isOpen, type RunState, type WorkflowTaskState } from './state';
import { parseTaskToken, queryTaskToken } from './tokens';
import { workflowTaskResponse, type WorkflowQueuedTask } from './workflow-task-response';

export interface WorkflowQueryResult {
  resultType?: number;
  answer?: Payloads;
  errorMessage?: string;
  failure?: Failure;
}

export interface QueryWorkflowRequest {
  execution?: WorkflowExecutionRef;
  query?: Message;
  queryRejectCondition?: number;
}

export interface RespondQueryTaskCompletedRequest {
  taskToken?: Uint8Array;
  completedType?: number;
  queryResult?: Payloads;
  errorMessage?: string;
  failure?: Failure;
}

function rejectedStatus(run: RunState, condition: number | undefined): number | undefined {
  const C = enums.QueryRejectCondition;
  if (isOpen(run)) return undefined;
  if (condition === C.QUERY_REJECT_CONDITION_NOT_OPEN) return run.status;
  const completedCleanly = run.status === enums.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED;
  if (condition === C.QUERY_REJECT_CONDITION_NOT_COMPLETED_CLEANLY && !completedCleanly) return run.status;
  return undefined;
}

export function queryWorkflow(engine: Engine, request: QueryWorkflowRequest, call: PollCall): Promise<Message> {
  if (!request.query?.queryType) throw invalidArgument('QueryType is not set on request.');
  const run = engine.requireRun(request.execution);
  const rejected = rejectedStatus(run, request.queryRejectCondition);
  if (rejected !== undefined) return Promise.resolve({ queryRejected: { status: rejected } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => query.settle({ error: new DevServerError('DEADLINE_EXCEEDED', 'query timed out: no worker answered') }),
      engine.longPollMs
    );
    const query: PendingQuery = {
      id: randomUUID(),
      runId: run.runId,
      query: request.query as Message,
      state: 'waiting',
      settle: (outcome) => {
        if (!engine.pendingQueries.delete(query.id)) return;
        clearTimeout(timer);
        stopListening();
        if ('error' in outcome) reject(outcome.error);
        else resolve({ queryResult: outcome.answer ?? { payloads: [] } });
      },
    };
    engine.pendingQueries.set(query.id, query);
    const stopListening = call.onCancel(() =>
      query.settle({ error: new DevServerError('CANCELLED', 'query call cancelled') })
    );
    engine.transact(() => {
      if (!isOpen(run) || !run.wft) dispatchLegacyQuery(engine, run, query);
    });
  });
}

function queriesOf(engine: Engine, runId: string): PendingQuery[] {
  if (engine.pendingQueries.size === 0) return [];
  return [...engine.pendingQueries.values()].filter((q) => q.runId === runId);
}

/** Queries waiting for this workflow task, as the `queries` map of its poll response. */
export function takeAttachedQueries(
  engine: Engine,
  run: RunState,
  wft: WorkflowTaskState
): Record<string, Message> | undefined {
  let attached: Record<string, Message> | undefined;
  for (const query of queriesOf(engine, run.runId)) {
    if (query.state !== 'waiting') continue;
    query.state = 'attached';
    wft.deliveredQueryIds.push(query.id);
    attached = attached ?? {};
    attached[query.id] = query.query;
  }
  return attached;
}

export function resolveQueryResults(engine: Engine, results: Record<string, WorkflowQueryResult> | undefined): void {
  for (const [id, result] of Object.entries(results ?? {})) {
    const query = engine.pendingQueries.get(id);
    if (!query) continue;
    settleFromResult(query, result.resultType, result.answer, result.errorMessage, result.failure);
  }
}

function settleFromResult(
  query: PendingQuery,
  resultType: number | undefined,
  answer: Payloads | undefined,
  errorMessage: string | undefined,
  failure: Failure | undefined
): void {
  if (resultType === enums.QueryResultType.QUERY_RESULT_TYPE_ANSWERED) {
    query.settle({ answer });
    return;
  }
  // The real server answers a failed query with INVALID_ARGUMENT (QueryFailed), which clients map to query errors.
  const message = errorMessage || failure?.message || 'query failed';
  query.settle({
    error: new DevServerError('INVALID_ARGUMENT', message, {
      typeName: 'temporal.api.errordetails.v1.QueryFailedFailure',
      message: { failure },
    }),
  });
}

/** A failed or timed-out task did not answer its queries: they wait for the next task. */
export function requeueDeliveredQueries(engine: Engine, _run: RunState, wft: WorkflowTaskState): void {
  for (const id of wft.deliveredQueryIds) {
    const query = engine.pendingQueries.get(id);
    if (query && query.state === 'attached') query.state = 'waiting';
  }
}

/** After a workflow task ends (or the run closes), queries without a task to ride on go out as legacy tasks. */
export function releaseWaitingQueries(engine: Engine, run: RunState): void {
  for (const query of queriesOf(engine, run.runId)) {
    if (query.state === 'attached') query.state = 'waiting';
    if (query.state === 'waiting' && (!run.wft || !isOpen(run))) dispatchLegacyQuery(engine, run, query);
  }
}

function dispatchLegacyQuery(engine: Engine, run: RunState, query: PendingQuery): void {
  query.state = 'dispatched';
  const runId = run.runId;
  const task: WorkflowQueuedTask = {
    runId,
    dispatch: () => {
      const current = engine.runs.get(runId);
      if (!current || engine.pendingQueries.get(query.id) !== query) return undefined;
      // No history and startedEventId 0 make this a query-only task for sdk-core: it answers from its
      // cache, or fetches the history itself. A task that looked like a real workflow task would
      // supersede (and silently drop) other query tasks core has buffered for the run.
      return workflowTaskResponse(engine, current, {
        token: queryTaskToken(query.id),
        history: [],
        startedEventId: 0,
        attempt: 1,
        scheduledAt: engine.now(),
        query: query.query,
      });
    },
  };
  engine.defer(() => engine.matching.offer('workflow', run.taskQueue, task));
}

export function respondQueryTaskCompleted(engine: Engine, request: RespondQueryTaskCompletedRequest): object {
  const token = parseTaskToken(request.taskToken);
  if (token.kind !== 'query') throw invalidArgument('Not a query task token.');
  const query = engine.pendingQueries.get(token.queryId);
  if (!query) throw taskNotFound('Query task');
  settleFromResult(query, request.completedType, request.queryResult, request.errorMessage, request.failure);
  return {};
}
