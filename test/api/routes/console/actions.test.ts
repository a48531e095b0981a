import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../../api/app';
import type { OperatorActionRecord } from '../../../../api/console/ports';
import type { ApiPorts } from '../../../../api/ports';
import type { HeldTool } from '../../../../workflows/messages';
import { fakeConsolePorts, fakePorts } from '../../../support/fake-ports';

const CONVERSATION = '8f0c2a9e-5b7d-4c1e-9a3f-2d6b8e4f1a70';
const WORKFLOW = `turn-${CONVERSATION}-1`;
const TOKEN = 'actions-token';
const unused = () => Promise.reject(new Error('not used by this test'));

/** Every port an action could reach, counted: a refused action must reach none of them. */
function harness() {
  const rows: OperatorActionRecord[] = [];
  const calls: string[] = [];
  const held = { toolCode: 'loan.application.submit', callIndex: 1 } as HeldTool;
  const ports: ApiPorts = {
    ...fakePorts({ conversationId: CONVERSATION }),
    turns: {
      keyedConversation: unused,
      sendMessage: unused,
      retryTurn: async () => (calls.push('retryTurn'), unused()),
      decideApproval: async () => (calls.push('decideApproval'), unused()),
    },
    heldTools: {
      list: unused,
      resolve: async (_id, { action }) => {
        calls.push(`resolve:${action}`);
        return { accepted: true, toolCode: held.toolCode, callIndex: held.callIndex, action };
      },
    },
  };
  const consolePorts = fakeConsolePorts({
    recordAction: async (record) => void rows.push(record),
    inspector: {
      heldTool: async () => held,
      operateActivity: async (_id, _activity, operation) => void calls.push(`activity:${operation}`),
    },
  });
  const app = buildApi({ ports, apiToken: TOKEN, messageMaxBytes: 8192, logLevel: 'silent', console: consolePorts });
  return { app, rows, calls };
}

const act = (app: FastifyInstance, action: string, payload: object) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/console/turns/${WORKFLOW}/actions/${action}`,
    headers: { authorization: `Bearer ${TOKEN}`, 'x-request-id': 'req-1' },
    payload,
  });

/** The final version of the action's OPERATOR_ACTION row (it is written as STARTED, then rewritten). */
const lastRow = (rows: OperatorActionRecord[]) => rows.at(-1)?.payload;

describe('console actions take only the fields they use (core/turn/operator-decision.ts)', () => {
  const verified = { applicationId: 'LA-1' };

  it.each([
    ['retry', {}],
    ['approve', {}],
    ['reject', {}],
    ['activity-reset', { activityId: '7' }],
    ['activity-pause', { activityId: '7' }],
    ['activity-unpause', { activityId: '7' }],
    ['held-retry', { callIndex: 1 }],
    ['held-skip', { callIndex: 1 }],
    ['held-fail', { callIndex: 1 }],
  ])('refuses a result with %s as 400 RESULT_NOT_ALLOWED, and does nothing', async (action, fields) => {
    const { app, rows, calls } = harness();
    const res = await act(app, action, { ...fields, result: verified });
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'RESULT_NOT_ALLOWED']);
    expect(res.json().error.details).toEqual({ field: 'result' });
    expect(calls).toEqual([]);
    expect(lastRow(rows)).toEqual(expect.objectContaining({ result: 'FAILED', failure: 'RESULT_NOT_ALLOWED' }));
    await app.close();
  });

  it.each([
    ['retry', { activityId: '7' }, 'activityId'],
    ['retry', { callIndex: 1 }, 'callIndex'],
    ['approve', { activityId: '7' }, 'activityId'],
    ['activity-pause', { activityId: '7', callIndex: 1 }, 'callIndex'],
    ['held-skip', { callIndex: 1, activityId: '7' }, 'activityId'],
  ])('refuses %s with %j as 400 naming %s, and audits the attempt without it', async (action, json, field) => {
    const { app, rows, calls } = harness();
    const res = await act(app, action, json);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({
      code: 'VALIDATION_FAILED',
      message: `body.${field} is not an allowed property for ${action}.`,
      details: { in: 'body', field, problem: 'additionalProperties' },
    });
    expect(calls).toEqual([]);
    for (const row of rows) expect(row.payload).not.toHaveProperty(field);
    expect(lastRow(rows)).toEqual(expect.objectContaining({ action, result: 'FAILED', failure: 'VALIDATION_FAILED' }));
    await app.close();
  });

  it('keeps in the OPERATOR_ACTION row only what the action used, and the outcome in `result`', async () => {
    const { app, rows, calls } = harness();
    const paused = await act(app, 'activity-pause', { activityId: '7', reason: 'upstream is down' });
    expect(paused.statusCode).toBe(200);
    expect(lastRow(rows)).toEqual({
      action: 'activity-pause',
      source: 'console',
      requestId: 'req-1',
      activityId: '7',
      reason: 'upstream is down',
      result: 'DONE',
      httpStatus: 200,
    });
    const done = await act(app, 'held-mark-done', { callIndex: 1, result: verified });
    expect(done.statusCode).toBe(200);
    // The verified result is the turn's (its history and TOOL_HOLD_RESOLVED row); the row's `result` is the outcome.
    expect(lastRow(rows)).toEqual({
      action: 'held-mark-done',
      source: 'console',
      requestId: 'req-1',
      callIndex: 1,
      result: 'DONE',
      httpStatus: 200,
    });
    expect(calls).toEqual(['activity:pause', 'resolve:markDone']);
    await app.close();
  });
});
