/**
 * GetWorkflowExecutionHistory: pagination through `nextPageToken`, long polls for new events
 * (`waitNewEvent`) and the close-event filter used by `handle.result()`.
 */
import { invalidArgument, notFound } from '../errors';
import { appendRepeatedSubmessage, EncodedResponse, encodeMessage, protoType } from '../proto/codec';
import { enums, type WorkflowExecutionRef } from '../proto/types';
import type { Engine } from './engine';
import { closedTopic, historyTopic } from './history';
import type { PollCall } from './matching';
import { eventCount, isOpen, type RunState } from './state';

const RESPONSE = protoType('temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse');
const REVERSE_RESPONSE = protoType('temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryReverseResponse');
const HISTORY_FIELD_NUMBER = 1;
const DEFAULT_PAGE_SIZE = 1000;

export interface GetHistoryRequest {
  execution?: WorkflowExecutionRef;
  maximumPageSize?: number;
  nextPageToken?: Uint8Array;
  waitNewEvent?: boolean;
  historyEventFilterType?: number;
}

interface PageToken {
  runId: string;
  nextEventId: number;
}

function encodePageToken(runId: string, nextEventId: number): Buffer {
  return Buffer.from(JSON.stringify({ r: runId, n: nextEventId }));
}

function decodePageToken(bytes: Uint8Array | undefined): PageToken | undefined {
  if (!bytes || bytes.length === 0) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as { r?: unknown; n?: unknown };
    if (typeof parsed.r === 'string' && typeof parsed.n === 'number') return { runId: parsed.r, nextEventId: parsed.n };
  } catch {
    // fall through to the error below
  }
  throw invalidArgument('Invalid NextPageToken.');
}

function page(parts: Buffer[], nextPageToken: Buffer | undefined): EncodedResponse {
  const base = encodeMessage(RESPONSE, { nextPageToken, archived: false });
  return new EncodedResponse(appendRepeatedSubmessage(base, HISTORY_FIELD_NUMBER, parts));
}

function resolveRun(engine: Engine, request: GetHistoryRequest, token: PageToken | undefined): RunState {
  if (!token) return engine.requireRun(request.execution);
  const run = engine.runs.get(token.runId);
  if (!run) throw notFound('workflow execution not found for the page token');
  return run;
}

export async function getWorkflowExecutionHistory(
  engine: Engine,
  request: GetHistoryRequest,
  call: PollCall
): Promise<EncodedResponse> {
  const token = decodePageToken(request.nextPageToken);
  const run = resolveRun(engine, request, token);
  if (request.historyEventFilterType === enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT) {
    return closeEvent(engine, run, request.waitNewEvent === true, call);
  }
  const from = token?.nextEventId ?? 1;
  if (request.waitNewEvent && token) {
    while (isOpen(run) && from > eventCount(run)) {
      if (!(await engine.waitFor(historyTopic(run.runId), call))) break;
    }
  }
  const pageSize = request.maximumPageSize && request.maximumPageSize > 0 ? request.maximumPageSize : DEFAULT_PAGE_SIZE;
  const parts = run.encodedHistory.slice(from - 1, from - 1 + pageSize);
  const next = from + parts.length;
  const more = next <= eventCount(run) || (request.waitNewEvent === true && isOpen(run));
  return page(parts, more ? encodePageToken(run.runId, next) : undefined);
}

/** Waits (if asked) for the run to close and returns exactly its close event. */
async function closeEvent(engine: Engine, run: RunState, wait: boolean, call: PollCall): Promise<EncodedResponse> {
  while (isOpen(run)) {
    if (!wait) return page([], undefined);
    const notified = await engine.waitFor(closedTopic(run.runId), call);
    if (!notified && isOpen(run)) return page([], encodePageToken(run.runId, eventCount(run) + 1));
  }
  const last = run.encodedHistory[run.encodedHistory.length - 1];
  return page(last ? [last] : [], undefined);
}

export interface GetHistoryReverseRequest {
  execution?: WorkflowExecutionRef;
  maximumPageSize?: number;
  nextPageToken?: Uint8Array;
}

/** Newest events first; the token holds the ID of the next (older) event to return. */
export function getWorkflowExecutionHistoryReverse(engine: Engine, request: GetHistoryReverseRequest): EncodedResponse {
  const token = decodePageToken(request.nextPageToken);
  const run = resolveRun(engine, request, token);
  const pageSize = request.maximumPageSize && request.maximumPageSize > 0 ? request.maximumPageSize : DEFAULT_PAGE_SIZE;
  const last = token?.nextEventId ?? eventCount(run);
  const first = Math.max(1, last - pageSize + 1);
  const parts = run.encodedHistory.slice(first - 1, last).reverse();
  const nextPageToken = first > 1 ? encodePageToken(run.runId, first - 1) : undefined;
  const base = encodeMessage(REVERSE_RESPONSE, { nextPageToken });
  return new EncodedResponse(appendRepeatedSubmessage(base, HISTORY_FIELD_NUMBER, parts));
}
