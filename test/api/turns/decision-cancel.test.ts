/**
 * An operator's decision on a Temporal that stopped answering (a TCP switch in `stall` mode, as SIGSTOP would) ends at
 * its deadline, OPERATOR_DECISION_TIMEOUT_MS, and the Temporal calls it cut off there are cancelled: none is left to run
 * on to its own deadline (TEMPORAL_CALL_TIMEOUT_MS, here much later), and none is sent after the answer. The API's
 * client as api/server.ts makes it: its connection options, each call's own deadline, the API's stop signal.
 */
import * as grpc from '@grpc/grpc-js';
import { Client, Connection } from '@temporalio/client';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { temporalHeldTools } from '../../../api/turns/held-tools';
import { withDefaultCallDeadline } from '../../../config/temporal-call-deadline';
import { clientConnectionOptions } from '../../../config/temporal-client';
import { localTemporal } from '../../../config/temporal-connection';
import type { Database } from '../../../db/pool';
import { startTcpSwitch, type TcpSwitch } from '../../support/tcp-switch';
import { getTestTemporal, type TestTemporal } from '../../support/temporal';

const CONVERSATION = '6d1e8a40-2b7c-4f3e-9a15-0c4b7e2d9f31';
const TASK_QUEUE = `decision-cancel-${process.pid}`;
const DECISION_TIMEOUT_MS = 1_500;
/** Each call's own deadline: far past the decision's, so a call it did not cancel is still in flight at the answer. */
const CALL_TIMEOUT_MS = 20_000;
/** How long past its deadline a decision may take to answer on a loaded machine. */
const LATE_MS = 1_500;

jest.setTimeout(60_000);

/** A gRPC call as the client saw it: its method, and how it ended (none: still in flight). */
interface ObservedCall {
  method: string;
  startedAt: number;
  ended?: { code: grpc.status; at: number };
}

/** A client interceptor that records every call the connection sends, and its final status, in `calls`. */
function observer(calls: ObservedCall[]): grpc.Interceptor {
  return (options, nextCall) => {
    const call: ObservedCall = {
      method: options.method_definition.path.split('/').pop() ?? '?',
      startedAt: Date.now(),
    };
    calls.push(call);
    return new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        next(metadata, {
          onReceiveStatus(status, nextStatus) {
            call.ended = { code: status.code, at: Date.now() };
            nextStatus(status);
          },
        });
      },
    });
  };
}

const portOf = (address: string) => Number(address.slice(address.lastIndexOf(':') + 1));

describe("an operator's decision while Temporal does not answer", () => {
  let temporal: TestTemporal;
  let hang: TcpSwitch;
  let connection: Connection;
  let client: Client;
  const stopped = new AbortController();
  const calls: ObservedCall[] = [];

  beforeAll(async () => {
    temporal = await getTestTemporal();
    hang = await startTcpSwitch(portOf(temporal.address));
    const options = clientConnectionOptions(localTemporal(hang.address));
    connection = await Connection.connect({
      ...options,
      interceptors: [observer(calls), ...(options.interceptors ?? [])],
    });
    const bounded = withDefaultCallDeadline(connection, CALL_TIMEOUT_MS, stopped.signal);
    client = new Client({ connection: bounded, namespace: temporal.namespace });
  });
  afterAll(async () => {
    hang?.set('pass');
    stopped.abort();
    await connection?.close();
    await hang?.stop();
    await temporal?.stop();
  });

  const approve = () =>
    new TemporalTurnGateway({
      client,
      db: {} as Database,
      taskQueue: TASK_QUEUE,
      replyTimeoutMs: 60_000,
      decisionTimeoutMs: DECISION_TIMEOUT_MS,
    }).decideApproval(CONVERSATION, 2, { decision: 'approve', callIndex: 1, reason: null, decidedBy: 'sre' });
  const skip = () =>
    temporalHeldTools(client, { taskQueue: TASK_QUEUE, decisionTimeoutMs: DECISION_TIMEOUT_MS }).resolve(
      `turn-${CONVERSATION}-2`,
      { action: 'skip', decidedBy: 'sre' }
    );

  it.each([
    ['an approval', approve],
    ['a held call', skip],
  ])(
    '%s: 503 TEMPORAL_UNREACHABLE by its deadline, its describe cancelled then, nothing sent after',
    async (_, decide) => {
      const before = calls.length;
      hang.set('stall');
      try {
        const startedAt = Date.now();
        const answer = await decide().catch((err: unknown) => err);
        const answeredAt = Date.now();
        expect(answer).toMatchObject({
          statusCode: 503,
          code: 'TEMPORAL_UNREACHABLE',
          details: { decisionSent: false },
        });
        expect(answeredAt - startedAt).toBeLessThan(DECISION_TIMEOUT_MS + LATE_MS);
        // The client reports a cancel at once; a call left running would end only at its own deadline, 20 s on.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const sent = calls.slice(before);
        expect(sent.map((call) => call.method)).toEqual(['DescribeWorkflowExecution']);
        expect(sent[0]?.ended?.code).toBe(grpc.status.CANCELLED);
        expect(sent[0]?.ended?.at).toBeLessThanOrEqual(answeredAt);
      } finally {
        hang.set('pass');
      }
    }
  );
});
