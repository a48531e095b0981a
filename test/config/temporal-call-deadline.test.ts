import { AsyncLocalStorage } from 'node:async_hooks';
import * as grpc from '@grpc/grpc-js';
import type { ConnectionLike } from '@temporalio/client';
import { withDefaultCallDeadline } from '../../config/temporal-call-deadline';
import { isTemporalUnreachable } from '../../config/temporal-client';

/** A connection as both SDK connections keep their call context: each call records the deadline it was sent with. */
function fakeConnection() {
  const callContextStorage = new AsyncLocalStorage<{ deadline?: number | Date }>();
  const sent: { method: string; deadline: number | undefined }[] = [];
  const rpc = (method: string) => async () => {
    const deadline = callContextStorage.getStore()?.deadline;
    sent.push({ method, deadline: deadline === undefined ? undefined : Number(deadline) });
  };
  const connection = {
    callContextStorage,
    workflowService: {
      startWorkflowExecution: rpc('startWorkflowExecution'),
      updateWorkflowExecution: rpc('updateWorkflowExecution'),
      getWorkflowExecutionHistory: rpc('getWorkflowExecutionHistory'),
    },
    operatorService: { listSearchAttributes: rpc('listSearchAttributes') },
    withDeadline<R>(deadline: number | Date, fn: () => Promise<R>): Promise<R> {
      return callContextStorage.run({ ...callContextStorage.getStore(), deadline }, fn);
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

  it('reads the native connection’s deadline (CANCELLED "Timeout expired") as unreachable, not any CANCELLED', () => {
    const native = Object.assign(new Error('Timeout expired'), { code: grpc.status.CANCELLED });
    const wrapped = new Error('Failed to start Workflow', { cause: native });
    expect(isTemporalUnreachable(wrapped)).toBe(true);
    const cancelled = Object.assign(new Error('1 CANCELLED: Cancelled on client'), { code: grpc.status.CANCELLED });
    expect(isTemporalUnreachable(cancelled)).toBe(false);
  });
});
