/**
 * An error that names a conversation or a turn quotes its id as the client sent it (api/sent-ids.ts): the routes look
 * ids up lower-cased, as conversations and turn workflows are named, and a client that sent an upper-case UUID must
 * still recognise its own id, whichever layer (route, gateway, held-tool operations, what-if) wrote the refusal. A
 * field (an error's details.workflowId, a retryWith url, a reply's conversationId) carries the id the API names the
 * conversation and its workflows by, lower-case, as a reply's fields do: Temporal's ids are case-sensitive.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { WhatifInputError } from '../../../activities/whatif/draft';
import { buildApi } from '../../../api/app';
import { ApiError } from '../../../api/errors';
import type { ApiPorts, TurnReply, TurnRequest } from '../../../api/ports';
import { TemporalTurnGateway } from '../../../api/turns/gateway';
import { temporalHeldTools } from '../../../api/turns/held-tools';
import type { Database } from '../../../db/pool';
import { TURN_WORKFLOW_TYPE } from '../../../workflows/turn-type';
import { fakeTemporalClient } from '../../support/fake-temporal-client';
import { fakeConsolePorts, fakePorts } from '../../support/fake-ports';

const CONVERSATION = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const UNKNOWN = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
/** A UUID as a client may send it: upper-case, or mixed. */
const SENT = CONVERSATION.toUpperCase();
const MIXED = `${UNKNOWN.slice(0, 18)}${UNKNOWN.slice(18).toUpperCase()}`;
const TURN_SENT = `turn-${SENT}-2`;

/** The API over the real gateway and held-tool operations, on a Temporal client whose every turn is `status`. */
function apiOverTemporal(status: 'COMPLETED' | 'RUNNING' | 'NONE', polledMsAgo = 1_000) {
  const handle = {
    workflowId: `turn-${CONVERSATION}-2`,
    describe: async () => {
      if (status === 'NONE') throw new WorkflowNotFoundError('not found', `turn-${CONVERSATION}-2`, undefined);
      return {
        status: { name: status },
        runId: 'run-1',
        taskQueue: 'convengine-turns',
        type: TURN_WORKFLOW_TYPE,
        raw: {},
      };
    },
    executeUpdate: () => Promise.reject(new Error('the decision was sent')),
  };
  const client = fakeTemporalClient(handle, polledMsAgo);
  const db = {} as Database;
  const ports: ApiPorts = {
    ...fakePorts({ conversationId: CONVERSATION }),
    turns: new TemporalTurnGateway({ client, db, taskQueue: 'convengine-turns', replyTimeoutMs: 1_000 }),
    heldTools: temporalHeldTools(client, { taskQueue: 'convengine-turns' }),
  };
  const console = fakeConsolePorts({
    recordAction: async () => undefined,
    inspector: { heldTool: async () => null },
  });
  return buildApi({ ports, console, messageMaxBytes: 8192, logLevel: 'silent' });
}

async function answer(app: FastifyInstance, request: InjectOptions) {
  try {
    const res = await app.inject(request);
    return [res.statusCode, res.json().error];
  } finally {
    await app.close();
  }
}

describe('a turn named with an upper-case UUID is named as sent in every refusal', () => {
  it('409 TURN_ALREADY_COMPLETED on a retry, from the admin route and the console', async () => {
    const refusal = [409, { code: 'TURN_ALREADY_COMPLETED', message: `Turn ${TURN_SENT} already completed.` }];
    expect(
      await answer(apiOverTemporal('COMPLETED'), { method: 'POST', url: `/api/v1/admin/turns/${TURN_SENT}/retry` })
    ).toEqual(refusal);
    const url = `/api/v1/console/turns/${TURN_SENT}/actions/retry`;
    expect(await answer(apiOverTemporal('COMPLETED'), { method: 'POST', url, payload: {} })).toEqual(refusal);
  });

  it('409 NOT_HELD on a held-tool decision, from the admin route and the console', async () => {
    const refusal = [409, { code: 'NOT_HELD', message: `Turn ${TURN_SENT} has no tool call held for an operator.` }];
    const admin = { method: 'POST', url: `/api/v1/admin/turns/${TURN_SENT}/held-tool`, payload: { action: 'skip' } };
    expect(await answer(apiOverTemporal('COMPLETED'), admin as InjectOptions)).toEqual(refusal);
    const url = `/api/v1/console/turns/${TURN_SENT}/actions/held-skip`;
    expect(await answer(apiOverTemporal('RUNNING'), { method: 'POST', url, payload: {} })).toEqual(refusal);
  });

  it('503 WORKER_UNAVAILABLE: the message as sent, the details as Temporal names the workflow', async () => {
    const url = `/api/v1/admin/turns/${TURN_SENT}/held-tool`;
    const [status, error] = await answer(apiOverTemporal('RUNNING', 10 * 60_000), {
      method: 'POST',
      url,
      payload: { action: 'skip' },
    });
    expect([status, error.code, error.details.workflowId]).toEqual([
      503,
      'WORKER_UNAVAILABLE',
      `turn-${CONVERSATION}-2`,
    ]);
    expect(error.message).toMatch(new RegExp(`^Turn ${TURN_SENT} cannot take a decision now: `));
  });

  it('404 TURN_NOT_FOUND on an approval, from the conversation route and the console', async () => {
    const refusal = [404, { code: 'TURN_NOT_FOUND', message: `No turn 2 in conversation ${SENT}.` }];
    const approval = {
      method: 'POST',
      url: `/api/v1/conversation/${SENT}/turns/2/approval`,
      payload: { decision: 'approve', callIndex: 1 },
    } as const;
    expect(await answer(apiOverTemporal('NONE'), approval)).toEqual(refusal);
    const url = `/api/v1/console/turns/${TURN_SENT}/actions/approve`;
    expect(await answer(apiOverTemporal('NONE'), { method: 'POST', url, payload: { callIndex: 1 } })).toEqual(refusal);
  });
});

describe('a conversation named with an upper-case UUID is named as sent in every refusal', () => {
  it.each([
    ['GET', `/api/v1/conversation/${SENT}`],
    ['GET', `/api/v1/conversation/audit/${SENT}`],
    ['GET', `/api/v1/conversation/audit/${MIXED}`],
    ['GET', `/api/v1/conversation/audit/${SENT}/trace`],
    ['GET', `/api/v1/conversation/${SENT}/stream`],
    ['GET', `/api/v1/console/conversations/${SENT}/turns`],
    ['POST', `/api/v1/conversation/${SENT}/turns/2/approval`],
  ] as const)('404 CONVERSATION_NOT_FOUND on %s %s', async (method, url) => {
    const app = buildApi({
      ports: fakePorts({}),
      console: fakeConsolePorts(),
      messageMaxBytes: 8192,
      logLevel: 'silent',
    });
    const payload = method === 'POST' ? { payload: { decision: 'approve', callIndex: 1 } } : {};
    const sent = url.includes(MIXED) ? MIXED : SENT;
    expect(await answer(app, { method, url, ...payload })).toEqual([
      404,
      { code: 'CONVERSATION_NOT_FOUND', message: `No conversation ${sent}.` },
    ]);
  });

  it('on a message: what the gateway says of the conversation it was given (lower-case), as the client sent it', async () => {
    const given: string[] = [];
    const sendMessage = async ({ conversationId }: TurnRequest) => {
      given.push(conversationId);
      throw new ApiError(410, 'CONVERSATION_RETIRED', `Conversation ${conversationId} cannot take turn 2.`);
    };
    const ports = { ...fakePorts({}), turns: { ...fakePorts({}).turns, sendMessage } };
    const app = buildApi({ ports, messageMaxBytes: 8192, logLevel: 'silent' });
    const payload = { conversationId: SENT, message: 'hello' };
    expect(await answer(app, { method: 'POST', url: '/api/v1/conversation/message', payload })).toEqual([
      410,
      { code: 'CONVERSATION_RETIRED', message: `Conversation ${SENT} cannot take turn 2.` },
    ]);
    expect(given).toEqual([CONVERSATION]);
  });

  it("fields name it as the API does, lower-case: a failed turn's details.workflowId and retryWith", async () => {
    const sendMessage = async ({ conversationId }: TurnRequest): Promise<TurnReply> => ({
      kind: 'FAILED',
      ref: { conversationId, turnNumber: 2, workflowId: `turn-${conversationId}-2`, runId: 'run-1' },
      failureType: 'LLM_CALL_FAILED',
      message: 'the model did not answer',
      retryable: true,
    });
    const ports = { ...fakePorts({}), turns: { ...fakePorts({}).turns, sendMessage } };
    const app = buildApi({ ports, messageMaxBytes: 8192, logLevel: 'silent' });
    const payload = { conversationId: SENT, message: 'hello' };
    const [status, error] = await answer(app, { method: 'POST', url: '/api/v1/conversation/message', payload });
    expect([status, error.code, error.details.workflowId, error.details.retryWith.url]).toEqual([
      503,
      'TURN_FAILED',
      `turn-${CONVERSATION}-2`,
      `/api/v1/admin/turns/turn-${CONVERSATION}-2/retry`,
    ]);
  });

  it('on a what-if replay: what the replay says of the conversation, as the client sent it', async () => {
    const whatif = {
      conversation: async (id: string) => {
        throw new WhatifInputError('CONVERSATION_NOT_FOUND', `no recorded turns for conversation ${id}`);
      },
    };
    const app = buildApi({ ports: fakePorts({ whatif }), messageMaxBytes: 8192, logLevel: 'silent' });
    const url = `/api/v1/whatif?conversation=${SENT}&config=current`;
    expect(await answer(app, { method: 'GET', url })).toEqual([
      404,
      { code: 'CONVERSATION_NOT_FOUND', message: `no recorded turns for conversation ${SENT}` },
    ]);
  });
});
