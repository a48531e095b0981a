import { get as httpGet } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/app';
import { conflict } from '../../api/errors';
import type { ApiPorts, TurnGateway, TurnReply } from '../../api/ports';
import { createApiMetrics, type ApiMetrics } from '../../observability/metrics';
import { sendMessageAndLeave } from '../support/caller-gone';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

const CONVERSATION = '3c9a1f0e-2b4d-4e6f-8a7b-9c0d1e2f3a4b';
const TURN = `turn-${CONVERSATION}-1`;
const REF = { conversationId: CONVERSATION, turnNumber: 1, workflowId: TURN, runId: 'r1' };
const RESULT = {
  success: true,
  conversationId: CONVERSATION,
  turnNumber: 1,
  turnId: TURN,
  intent: 'GREETING',
  state: 'IDLE',
  payload: { type: 'TEXT', value: 'hi' },
  context: {},
  outcome: 'ANSWERED',
  configVersion: 'v1',
} as const;
const COMPLETED: TurnReply = { kind: 'COMPLETED', ref: REF, result: RESULT };
const FAILED: TurnReply = { kind: 'FAILED', ref: REF, failureType: 'LLM_CALL_FAILED', message: 'x', retryable: true };

interface Api {
  app: FastifyInstance;
  metrics: ApiMetrics;
  /** convengine_turn_duration_seconds's counts by outcome. */
  counts(): Promise<Record<string, number>>;
}

function api(turns: Partial<TurnGateway>, readiness?: ApiPorts['readiness']): Api {
  const metrics = createApiMetrics();
  const base = fakePorts({ conversationId: CONVERSATION });
  const ports: ApiPorts = { ...base, turns: { ...base.turns, ...turns }, readiness: readiness ?? base.readiness };
  const console = fakeConsolePorts({
    recordAction: async () => undefined,
    inspector: { operateActivity: () => Promise.reject(new Error('Temporal unreachable')) },
  });
  const app = buildApi({
    ports,
    messageMaxBytes: 8192,
    logLevel: 'silent',
    turnDuration: metrics.turnDuration,
    console,
  });
  const counts = async () => {
    const values = (await metrics.turnDuration.get()).values.filter(
      (v) => v.metricName === 'convengine_turn_duration_seconds_count'
    );
    return Object.fromEntries(values.map((v) => [String(v.labels['outcome']), v.value]));
  };
  return { app, metrics, counts };
}

const message = (app: FastifyInstance, text = 'hello') =>
  app.inject({ method: 'POST', url: '/api/v1/conversation/message', payload: { message: text } });
const approval = (app: FastifyInstance) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/conversation/${CONVERSATION}/turns/1/approval`,
    payload: { decision: 'approve', callIndex: 0 },
  });
const consoleAction = (app: FastifyInstance, action: string, body: object) =>
  app.inject({ method: 'POST', url: `/api/v1/console/turns/${TURN}/actions/${action}`, payload: body });

/** convengine_turn_duration_seconds: one count per turn request, decided as its answer is sent. */
describe('turn metrics (observability/turn-metrics.ts)', () => {
  it('counts a message the prerequisite check refuses with 503 as ERROR, once', async () => {
    const blocked = { code: 'DATABASE_UNREACHABLE', message: 'The database is unreachable; retry later.' };
    const { app, counts } = api({}, { check: async () => ({ checks: {} }), turnBlocker: async () => blocked });
    try {
      const res = await message(app);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ error: blocked });
      expect(await counts()).toEqual({ ERROR: 1 });
    } finally {
      await app.close();
    }
  });

  it('counts no 4xx refusal (a blank message, a stale decision) and a thrown server-side failure as ERROR', async () => {
    const { app, counts } = api({
      decideApproval: () => Promise.reject(conflict('STALE_DECISION', 'the pending call is #4')),
      retryTurn: () => Promise.reject(new Error('Temporal unreachable')),
    });
    try {
      expect((await message(app, '   ')).statusCode).toBe(400);
      expect((await approval(app)).statusCode).toBe(409);
      expect(await counts()).toEqual({});
      const retried = await app.inject({ method: 'POST', url: `/api/v1/admin/turns/${TURN}/retry` });
      expect(retried.statusCode).toBe(500);
      expect(await counts()).toEqual({ ERROR: 1 });
    } finally {
      await app.close();
    }
  });

  it("counts a turn's answer by its outcome: a failed turn's 503 is FAILED, not ERROR", async () => {
    const replies = [COMPLETED, FAILED];
    const { app, counts } = api({ sendMessage: async () => replies.shift() as TurnReply });
    try {
      expect((await message(app)).statusCode).toBe(200);
      expect((await message(app)).statusCode).toBe(503);
      expect(await counts()).toEqual({ COMPLETED: 1, FAILED: 1 });
    } finally {
      await app.close();
    }
  });

  it("counts the console's turn actions, and none of its other actions", async () => {
    const { app, counts } = api({ retryTurn: () => Promise.reject(new Error('Temporal unreachable')) });
    try {
      expect((await consoleAction(app, 'activity-pause', { activityId: '7', reason: 'stuck' })).statusCode).toBe(500);
      expect(await counts()).toEqual({});
      expect((await consoleAction(app, 'retry', { reason: 'flaky model' })).statusCode).toBe(500);
      expect(await counts()).toEqual({ ERROR: 1 });
    } finally {
      await app.close();
    }
  });

  it('counts a turn whose caller left before its answer, once', async () => {
    let answer: (reply: TurnReply) => void = () => undefined;
    let started: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => (started = resolve));
    const { app, counts } = api({
      sendMessage: () => new Promise<TurnReply>((resolve) => ((answer = resolve), started())),
    });
    try {
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      await sendMessageAndLeave(url, reached);
      // The API saw the caller go before the turn answers.
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer(COMPLETED);
      for (let i = 0; i < 100 && Object.keys(await counts()).length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await counts()).toEqual({ COMPLETED: 1 });
      // Still once, after the API has long seen the socket close.
      await new Promise<void>((resolve) => httpGet(`${url}/healthz`, (res) => res.resume().on('end', resolve)));
      expect(await counts()).toEqual({ COMPLETED: 1 });
    } finally {
      await app.close();
    }
  });
});
