import { AsyncLocalStorage } from 'node:async_hooks';
import { getEventListeners } from 'node:events';
import * as grpc from '@grpc/grpc-js';
import type { ConnectionLike } from '@temporalio/client';
import { CallAbortedError, ClientStoppedError, withDefaultCallDeadline } from '../../config/temporal-call-deadline';
import { isTemporalUnreachable } from '../../config/temporal-client';

/**
 * A connection as both SDK connections keep their call context: each call records the deadline it was sent with,
 * and the signal that cancels it.
 */
function fakeConnection() {
  const callContextStorage = new AsyncLocalStorage<{ deadline?: number | Date; abortSignal?: AbortSignal }>();
  const sent: { method: string; deadline: number | undefined; signal?: AbortSignal }[] = [];
  const rpc = (method: string) => async () => {
    const { deadline, abortSignal: signal } = callContextStorage.getStore() ?? {};
    // As the SDK does (connection.js, generateRPCImplementation): a listener it never removes.
    signal?.addEventListener('abort', () => undefined);
    sent.push({ method, deadline: deadline === undefined ? undefined : Number(deadline), signal });
  };
  /** A call the server never answers: it ends when its signal aborts, as the SDK cancels it (CANCELLED). */
  const unanswered = (method: string) => () => {
    const { abortSignal: signal } = callContextStorage.getStore() ?? {};
    sent.push({ method, deadline: undefined, signal });
    return new Promise<never>((_resolve, reject) =>
      signal?.addEventListener('abort', () => reject(Object.assign(new Error('cancelled'), { code: 1 })))
    );
  };
  const connection = {
    callContextStorage,
    workflowService: {
      describeWorkflowExecution: unanswered('describeWorkflowExecution'),
      startWorkflowExecution: rpc('startWorkflowExecution'),
      updateWorkflowExecution: rpc('updateWorkflowExecution'),
      getWorkflowExecutionHistory: rpc('getWorkflowExecutionHistory'),
    },
    operatorService: { listSearchAttributes: rpc('listSearchAttributes') },
    withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
      return callContextStorage.run({ ...callContextStorage.getStore(), deadline }, fn);
    },
    withAbortSignal<R>(abortSignal: AbortSignal, fn: () => Promise<R>): Promise<R> {
      return callContextStorage.run({ ...callContextStorage.getStore(), abortSignal }, fn);
    },
  };
  return { connection: connection as unknown as ConnectionLike & typeof connection, sent };
}

describe('the API’s Temporal calls are bounded (config/temporal-call-deadline.ts)', () => {
  it('gives a call without a deadline one, keeps a deadline set around it, and leaves long polls alone', async () => {
    const { connection, sent } = fakeConnection();
    const bounded = withDefaultCallDeadline(connection, 1_000);
    const before = Date.now();
    await bounded.workflowService.startWorkflowExecution({});
    await bounded.operatorService.listSearchAttributes({});
    await bounded.withDeadline(before + 60_000, () => bounded.workflowService.startWorkflowExecution({}));
    await bounded.workflowService.updateWorkflowExecution({});
    await bounded.workflowService.getWorkflowExecutionHistory({ waitNewEvent: true });
    await bounded.workflowService.getWorkflowExecutionHistory({});
    const [start, operator, explicit, update, longPoll, history] = sent;
    for (const call of [start, operator, history]) {
      expect(call?.deadline).toBeGreaterThanOrEqual(before + 1_000);
      expect(call?.deadline).toBeLessThan(before + 60_000);
    }
    expect(explicit?.deadline).toBe(before + 60_000);
    expect([update?.deadline, longPoll?.deadline]).toEqual([undefined, undefined]);
    // The connection itself, which a worker may share, is left as it was.
    await connection.workflowService.startWorkflowExecution({});
    expect(sent.at(-1)?.deadline).toBeUndefined();
  });

  it('cancels the calls in flight once stopped, and sends none after', async () => {
    const { connection, sent } = fakeConnection();
    const stopped = new AbortController();
    const bounded = withDefaultCallDeadline(connection, 1_000, stopped.signal);
    await bounded.workflowService.updateWorkflowExecution({});
    await bounded.workflowService.startWorkflowExecution({});
    const own = new AbortController();
    await bounded.withAbortSignal(own.signal, () => bounded.workflowService.startWorkflowExecution({}));
    const [update, start, owned] = sent.map((call) => call.signal);
    expect([update?.aborted, start?.aborted, owned?.aborted]).toEqual([false, false, false]);
    // The deadline still applies within the signal's scope.
    expect(sent[1]?.deadline).toBeDefined();
    expect(owned).not.toBe(own.signal);

    stopped.abort();
    // Each call had a signal of its own, let go of when it ended (one in flight is cancelled: the test below).
    expect([update?.aborted, start?.aborted, owned?.aborted]).toEqual([false, false, false]);
    const refused = bounded.workflowService.getWorkflowExecutionHistory({ waitNewEvent: true });
    await expect(refused).rejects.toBeInstanceOf(ClientStoppedError);
    await expect(refused).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    expect(isTemporalUnreachable(await refused.catch((err: unknown) => err))).toBe(false);
    expect(sent).toHaveLength(3);
  });

  it('leaves no listener on the stop’s signal, nor on a caller’s, once each call has ended', async () => {
    const { connection } = fakeConnection();
    const stopped = new AbortController();
    const bounded = withDefaultCallDeadline(connection, 1_000, stopped.signal);
    const own = new AbortController();
    for (let i = 0; i < 50; i += 1) {
      await bounded.workflowService.startWorkflowExecution({});
      await bounded.withAbortSignal(own.signal, () => bounded.workflowService.getWorkflowExecutionHistory({}));
    }
    expect(getEventListeners(stopped.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(own.signal, 'abort')).toHaveLength(0);
  });

  it('cancels a call under its caller’s signal when the API stops, and sends none once that signal aborted', async () => {
    const { connection, sent } = fakeConnection();
    const stopped = new AbortController();
    const bounded = withDefaultCallDeadline(connection, 1_000, stopped.signal);
    const own = new AbortController();
    const inFlight = bounded.withAbortSignal(own.signal, () => bounded.workflowService.describeWorkflowExecution({}));
    stopped.abort();
    await expect(inFlight).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    expect(own.signal.aborted).toBe(false);

    const unstopped = withDefaultCallDeadline(connection, 1_000);
    const cutOff = unstopped.withAbortSignal(own.signal, () => unstopped.workflowService.describeWorkflowExecution({}));
    own.abort();
    await expect(cutOff).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    // A call its caller asks for after giving up (the next call of a chain) is not sent.
    const late = unstopped.withAbortSignal(own.signal, () => unstopped.workflowService.startWorkflowExecution({}));
    await expect(late).rejects.toBeInstanceOf(CallAbortedError);
    expect(sent.map((call) => call.method)).toEqual(['describeWorkflowExecution', 'describeWorkflowExecution']);
  });

  it('reads the native connection’s deadline (CANCELLED "Timeout expired") as unreachable, not any CANCELLED', () => {
    const native = Object.assign(new Error('Timeout expired'), { code: grpc.status.CANCELLED });
    const wrapped = new Error('Failed to start Workflow', { cause: native });
    expect(isTemporalUnreachable(wrapped)).toBe(true);
    const cancelled = Object.assign(new Error('1 CANCELLED: Cancelled on client'), { code: grpc.status.CANCELLED });
    expect(isTemporalUnreachable(cancelled)).toBe(false);
  });
});
