import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import { EngineError, ErrorType } from '../../../core/errors';
import type { Json, JsonObject } from '../../../core/json';
import type { CircuitRegistry, CircuitSettings } from './circuit';
import { mapResponse, responseMappingOf } from './mapping';
import type { ToolCallContext } from './placeholders';
import { buildHttpRequest, type HttpRequestSpec } from './request';
import { activityContext } from '../../runtime/activity-context';
import { longestWaitMs, retryAfterMs } from './retry-after';
import { ANSWER_IO_KINDS, HttpIoError, sendOnce, type HttpResponse } from './transport';

/**
 * Calls a table-configured HTTP tool (§6.10): renders the request once, then tries up to
 * max_attempts times, retrying configured statuses (429/502/503/504 by default) and IO errors
 * with exponential backoff (or the Retry-After asked for, up to max_backoff_ms; a longer one ends the call:
 * retry-after.ts), behind a per-tool circuit breaker that counts only calls that found
 * the upstream unhealthy. Every attempt sends the same
 * Idempotency-Key, so a write that was applied before a timeout is not applied twice (D16).
 */
export interface HttpToolInvocation {
  toolCode: string;
  row: McpHttpToolRow;
  args: JsonObject;
  ctx: ToolCallContext;
  /** Sent as Idempotency-Key; set for write tools only. */
  idempotencyKey: string | null;
  /** The tool call, the same across its activity attempts (`<turn id>/tool/<callIndex>`): the circuit counts it once. */
  callId: string;
}

export interface HttpInvokerDeps {
  circuits: CircuitRegistry;
  env: Readonly<Record<string, string | undefined>>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface HttpToolResult extends JsonObject {
  status: number;
  attempt: number;
  latencyMs: number;
  mapped: Json;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function retryStatuses(row: McpHttpToolRow): Set<number> {
  const list = Array.isArray(row.retryStatusCodes) ? row.retryStatusCodes : [];
  return new Set(list.filter((s): s is number => typeof s === 'number'));
}

function circuitSettings(row: McpHttpToolRow): CircuitSettings {
  return {
    enabled: row.circuitEnabled,
    threshold: Math.max(1, row.circuitFailureThreshold),
    openMs: Math.max(1000, row.circuitOpenMs),
  };
}

type Attempt = { kind: 'response'; response: HttpResponse; latencyMs: number } | { kind: 'io'; error: HttpIoError };

async function attemptOnce(spec: HttpRequestSpec, row: McpHttpToolRow, now: () => number): Promise<Attempt> {
  const started = now();
  try {
    const timeouts = {
      signal: activityContext()?.cancellationSignal,
      connectTimeoutMs: Math.max(100, row.connectTimeoutMs),
      readTimeoutMs: Math.max(100, row.readTimeoutMs),
    };
    const response = await sendOnce(spec, timeouts);
    return { kind: 'response', response, latencyMs: now() - started };
  } catch (err) {
    if (err instanceof HttpIoError) return { kind: 'io', error: err };
    throw err;
  }
}

function failure(inv: HttpToolInvocation, outcome: CallOutcome): EngineError {
  const { last, attempts, waitAskedMs } = outcome;
  const details = { toolCode: inv.toolCode, attempts };
  if (waitAskedMs !== undefined && last.kind === 'response') return waitRefused(inv, outcome, last.response.status);
  if (last.kind === 'io') {
    const timeout = last.error.kind === 'CONNECT_TIMEOUT' || last.error.kind === 'READ_TIMEOUT';
    return new EngineError(
      timeout ? ErrorType.ToolTimeout : ErrorType.ToolHttpError,
      `HTTP_API call of ${inv.toolCode} failed due to ${timeout ? 'a timeout' : 'an IO error'} after ${attempts} attempt(s): ${last.error.message}`,
      // A body over the limit or in another coding comes back the same; a lost connection or a timeout may not.
      { retryable: !ANSWER_IO_KINDS.has(last.error.kind), details: { ...details, ioKind: last.error.kind } }
    );
  }
  const status = last.response.status;
  return new EngineError(
    ErrorType.ToolHttpError,
    `HTTP_API call of ${inv.toolCode} failed with status ${status} after ${attempts} attempt(s)`,
    {
      // Only throttling and server errors may pass on another attempt; any other 4xx is the request's own.
      retryable: status === 429 || status >= 500,
      // No part of the body: an upstream's answer may quote customer data or the request's own key, and this
      // failure reaches Temporal's history, the logs and the audit rows (docs/security.md, "Failure text").
      details: { ...details, status },
    }
  );
}

function shouldRetry(a: Attempt, row: McpHttpToolRow, statuses: Set<number>): boolean {
  if (a.kind === 'io') return row.retryOnIoError && !ANSWER_IO_KINDS.has(a.error.kind);
  return statuses.has(a.response.status);
}

function succeeded(a: Attempt): boolean {
  return a.kind === 'response' && a.response.status >= 200 && a.response.status < 300;
}

/** Request timeout and throttling say the upstream is struggling, whether or not the row retries them. */
const UNHEALTHY_CLIENT_STATUSES: ReadonlySet<number> = new Set([408, 429]);

/**
 * Whether a call's last attempt says the upstream is unhealthy, which is what the circuit counts: a
 * server error, a status the row retries, 408 or 429, an IO error or a timeout. Any other answer
 * (a 404, a 400, a body over the size cap or in another coding) proves the upstream answers; the request was at fault.
 */
function upstreamUnhealthy(a: Attempt, statuses: Set<number>): boolean {
  if (a.kind === 'io') return !ANSWER_IO_KINDS.has(a.error.kind);
  if (succeeded(a)) return false;
  const status = a.response.status;
  return status >= 500 || UNHEALTHY_CLIENT_STATUSES.has(status) || statuses.has(status);
}

interface CallOutcome {
  last: Attempt;
  attempts: number;
  /** The Retry-After the upstream sent, when it asked for a longer wait than the call takes (retry-after.ts). */
  waitAskedMs?: number;
}

/** No more attempts this turn: the activity's retries and the planner would ask again long before the wait is up. */
function waitRefused(inv: HttpToolInvocation, outcome: CallOutcome, status: number): EngineError {
  const seconds = Math.ceil((outcome.waitAskedMs ?? 0) / 1000);
  const longest = longestWaitMs(inv.row.maxBackoffMs);
  return new EngineError(
    ErrorType.ToolHttpError,
    `HTTP_API call of ${inv.toolCode} failed with status ${status} after ${outcome.attempts} attempt(s): the ` +
      `upstream asks to wait ${seconds} s (Retry-After), longer than the call waits between attempts ` +
      `(${longest} ms, max_backoff_ms); not tried again this turn`,
    {
      retryable: false,
      details: { toolCode: inv.toolCode, attempts: outcome.attempts, status, retryAfterSeconds: seconds },
    }
  );
}

/** Up to max_attempts attempts, with backoff between retryable ones; the last attempt decides. */
async function attemptWithRetries(
  spec: HttpRequestSpec,
  row: McpHttpToolRow,
  deps: { now: () => number; sleep: (ms: number) => Promise<void> }
): Promise<CallOutcome> {
  const maxAttempts = Math.max(1, row.maxAttempts);
  const statuses = retryStatuses(row);
  let backoff = Math.max(0, row.initialBackoffMs);
  for (let attempt = 1; ; attempt++) {
    const last = await attemptOnce(spec, row, deps.now);
    if (succeeded(last) || !shouldRetry(last, row, statuses)) return { last, attempts: attempt };
    const asked = last.kind === 'response' ? retryAfterMs(last.response.retryAfter, deps.now()) : null;
    if (asked !== null && asked > longestWaitMs(row.maxBackoffMs)) {
      return { last, attempts: attempt, waitAskedMs: asked };
    }
    if (attempt >= maxAttempts) return { last, attempts: attempt };
    await deps.sleep(Math.max(backoff, asked ?? 0));
    backoff = Math.min(Math.max(0, row.maxBackoffMs), Math.max(1, Math.round(backoff * row.backoffMultiplier)));
  }
}

export async function invokeHttpTool(inv: HttpToolInvocation, deps: HttpInvokerDeps): Promise<HttpToolResult> {
  const { row } = inv;
  const spec = buildHttpRequest(
    row,
    { toolCode: inv.toolCode, args: inv.args, ctx: inv.ctx, env: deps.env },
    inv.idempotencyKey
  );
  const mapping = responseMappingOf(inv.toolCode, row);
  const circuit = circuitSettings(row);
  deps.circuits.beforeCall(inv.toolCode, circuit);
  let outcome: CallOutcome;
  try {
    outcome = await attemptWithRetries(spec, row, { now: deps.now ?? Date.now, sleep: deps.sleep ?? defaultSleep });
  } catch (err) {
    deps.circuits.onAbandoned(inv.toolCode);
    throw err;
  }
  const { last, attempts } = outcome;
  if (upstreamUnhealthy(last, retryStatuses(row))) deps.circuits.onUnhealthy(inv.toolCode, circuit, inv.callId);
  else deps.circuits.onHealthy(inv.toolCode);
  if (last.kind === 'io' || !succeeded(last)) throw failure(inv, outcome);
  const mapped = mapResponse(inv.toolCode, mapping, last.response.body);
  return { status: last.response.status, attempt: attempts, latencyMs: last.latencyMs, mapped };
}
