import type { AsyncLocalStorage } from 'node:async_hooks';
import * as grpc from '@grpc/grpc-js';
import type { ConnectionLike } from '@temporalio/client';

/**
 * Calls that wait on purpose, for as long as a turn takes: an update waiting for its stage (the caller bounds it:
 * TURN_REPLY_TIMEOUT_MS, OPERATOR_DECISION_TIMEOUT_MS), and a history read waiting for the run's next event (a
 * result). A fixed deadline would cut a slow turn's answer, so these keep the deadline their caller sets, if any.
 */
const LONG_POLLS: ReadonlySet<string> = new Set(['updateWorkflowExecution', 'pollWorkflowExecutionUpdate']);

function longPoll(method: string, request: unknown): boolean {
  if (LONG_POLLS.has(method)) return true;
  return (
    method === 'getWorkflowExecutionHistory' &&
    (request as { waitNewEvent?: boolean } | undefined)?.waitNewEvent === true
  );
}

/** Both SDK connections keep the call context (deadline, metadata, signal) in this storage; a fake one may not. */
type CallContext = { deadline?: number | Date; abortSignal?: AbortSignal };
type DeadlineContext = { callContextStorage?: AsyncLocalStorage<CallContext> };

/** A call asked for once its client has stopped: not sent, and failed as a cancelled call is (CANCELLED). */
export class ClientStoppedError extends Error {
  readonly code = grpc.status.CANCELLED;
  constructor(method: string) {
    super(`${method} was not sent: the client has stopped`);
    this.name = 'ClientStoppedError';
  }
}

interface CallBounds {
  connection: ConnectionLike;
  context: AsyncLocalStorage<CallContext>;
  timeoutMs: number;
  stopped: AbortSignal | undefined;
}

/** A call asked for under its caller's signal once that has aborted (a deadline given up on): not sent. */
export class CallAbortedError extends Error {
  readonly code = grpc.status.CANCELLED;
  constructor(method: string) {
    super(`${method} was not sent: its caller gave up on it`);
    this.name = 'CallAbortedError';
  }
}

/** `call`, the RPC `method` with `request`, within `bounds` (withDefaultCallDeadline). */
function boundedCall(bounds: CallBounds, method: string, request: unknown, call: () => Promise<unknown>) {
  const { connection, context, timeoutMs, stopped } = bounds;
  if (stopped?.aborted) return Promise.reject(new ClientStoppedError(method));
  const store = context.getStore();
  // The SDK cancels a call when its signal aborts, and sends one under a signal aborted already as any other.
  if (store?.abortSignal?.aborted) return Promise.reject(new CallAbortedError(method));
  const timed =
    store?.deadline !== undefined || longPoll(method, request)
      ? call
      : () => connection.withDeadline(Date.now() + timeoutMs, call);
  if (!stopped) return timed();
  return withCallSignal(connection, [stopped, store?.abortSignal], timed);
}

/**
 * `call` under a signal of its own, aborted when any of `sources` aborts (the API's stop, the caller's own signal),
 * whose listeners on them end with the call. The SDK adds a listener to a call's signal and never removes it: on the
 * stop's signal, which lives as long as the API, that was one listener, holding its finished call, per call sent.
 */
function withCallSignal<R>(
  connection: ConnectionLike,
  sources: (AbortSignal | undefined)[],
  call: () => Promise<R>
): Promise<R> {
  const own = new AbortController();
  const abort = () => own.abort();
  const listened = sources.filter((source): source is AbortSignal => source !== undefined);
  for (const source of listened) source.addEventListener('abort', abort);
  const done = () => {
    for (const source of listened) source.removeEventListener('abort', abort);
  };
  return connection.withAbortSignal(own.signal, call).finally(done);
}

/**
 * `connection`, but each call it sends to the workflow or operator service without a deadline of its own gets one
 * of `timeoutMs` (long polls excepted, see LONG_POLLS). Without it a server that accepts the connection and never
 * answers (stopped with SIGSTOP, a half-dead host) holds a request for as long as the SDK waits: about 30 s on the
 * worker's native connection, without end on the client's own. The failure is then DEADLINE_EXCEEDED (the client's
 * connection) or CANCELLED "Timeout expired" (the native one), which isTemporalUnreachable reads as unreachable.
 * Once `stopped` aborts (the API's stop, its callers answered), the calls in flight are cancelled (the client's
 * connection; the native one does not cancel) and later ones fail at once (ClientStoppedError): a long poll would
 * otherwise outlive the API's close, and the chain that reads a turn's end would send more. So are those of a caller
 * whose own signal aborted (CallAbortedError): the deadline it gave up at, which the chain it started would outlive.
 * The connection itself is shared (the worker's, in `convengine start`) and left as it is.
 */
export function withDefaultCallDeadline<C extends ConnectionLike>(
  connection: C,
  timeoutMs: number,
  stopped?: AbortSignal
): C {
  const context = (connection as DeadlineContext).callContextStorage;
  if (!context) return connection;
  const bounds: CallBounds = { connection, context, timeoutMs, stopped };
  const bounded = <S extends object>(service: S): S =>
    new Proxy(service, {
      get(target, method, receiver) {
        const value: unknown = Reflect.get(target, method, receiver);
        // The RPCs are the service's own properties (on both connections); its prototype has rpcCall, end, on, ...
        if (typeof value !== 'function' || typeof method !== 'string' || !Object.hasOwn(target, method)) return value;
        return (...args: unknown[]) =>
          boundedCall(bounds, method, args[0], () =>
            (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
          );
      },
    });
  // The prototype is the connection: its own calls (withDeadline, close, the eager-start capability) stay its own.
  return Object.create(connection, {
    workflowService: { value: bounded(connection.workflowService) },
    operatorService: { value: bounded(connection.operatorService) },
  }) as C;
}
