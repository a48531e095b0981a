/**
 * Every status a route answers is one its operation declares, by itself (not only as the 4XX range), naming the code
 * it comes with: a table of requests, each provoking one status of one route through ports that answer as the real
 * ones do, and the document the same API serves. A status a route gains without declaring it fails here.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { WhatifInputError } from '../../../activities/whatif/draft';
import { EngineError, ErrorType } from '../../../core/errors';
import { conflict } from '../../../api/errors';
import { turnNotFound } from '../../../api/turns/turn-id';
import { apiWithDependenciesDown, operations, TOKEN, type Document, type FixedMembers } from './document';

const ID = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const TURN = `turn-${ID}-2`;
const NO_TURN_ID = 'turn-nope';

/** The conversation `ID`, unknown to the database (never seen). */
const unknownConversation: FixedMembers = {
  conversations: { conversation: async () => null, retired: async () => false },
};
/** The conversation `ID`, pruned or erased: no row, its id retired. */
const retiredConversation: FixedMembers = {
  conversations: { conversation: async () => null, retired: async () => true },
  console: { read: (work: () => Promise<unknown>) => work() },
};
const knownConversation: FixedMembers = {
  conversations: { conversation: async (id: string) => ({ conversationId: id, history: [] }) },
};
const failingWith = (err: Error) => async () => Promise.reject(err);
const whatifRefusing = (code: WhatifInputError['code']): FixedMembers => ({
  whatif: { conversation: failingWith(new WhatifInputError(code, `refused: ${code}`)) },
});

interface Provoked {
  /** The operation, `METHOD /path/{param}` as the document names it. */
  op: string;
  url: string;
  body?: object;
  fixed?: FixedMembers;
  status: number;
  code: string;
}

const WHATIF = `/api/v1/whatif?conversation=${ID}&config=current`;
const ACTION = 'POST /api/v1/console/turns/{workflowId}/actions/{action}';
const RETRY = 'POST /api/v1/admin/turns/{workflowId}/retry';

/** Every read of a conversation by its id: 410 for a retired one, as a message to it gets. */
const READS = [
  ['GET /api/v1/conversation/{id}', `/api/v1/conversation/${ID}`],
  ['GET /api/v1/conversation/audit/{id}', `/api/v1/conversation/audit/${ID}`],
  ['GET /api/v1/conversation/audit/{id}/trace', `/api/v1/conversation/audit/${ID}/trace`],
  ['GET /api/v1/conversation/{id}/stream', `/api/v1/conversation/${ID}/stream`],
  ['GET /api/v1/console/conversations/{id}/turns', `/api/v1/console/conversations/${ID}/turns`],
] as const;

const PROVOKED: Provoked[] = [
  ...READS.map(([op, url]) => ({ op, url, fixed: retiredConversation, status: 410, code: 'CONVERSATION_RETIRED' })),
  {
    op: 'POST /api/v1/conversation/{id}/turns/{n}/approval',
    url: `/api/v1/conversation/${ID}/turns/2/approval`,
    body: { decision: 'approve', callIndex: 1 },
    fixed: retiredConversation,
    status: 410,
    code: 'CONVERSATION_RETIRED',
  },
  {
    op: 'GET /api/v1/conversation/{id}',
    url: `/api/v1/conversation/${ID}`,
    fixed: unknownConversation,
    status: 404,
    code: 'CONVERSATION_NOT_FOUND',
  },
  {
    op: 'GET /api/v1/conversation/audit/{id}',
    url: `/api/v1/conversation/audit/${ID}`,
    fixed: unknownConversation,
    status: 404,
    code: 'CONVERSATION_NOT_FOUND',
  },
  {
    op: 'GET /api/v1/conversation/audit/{id}/trace',
    url: `/api/v1/conversation/audit/${ID}/trace`,
    fixed: unknownConversation,
    status: 404,
    code: 'CONVERSATION_NOT_FOUND',
  },
  {
    op: 'GET /api/v1/conversation/audit/{id}/trace',
    url: `/api/v1/conversation/audit/${ID}/trace`,
    // A trail past the trace's bounds: the database says more rows follow the first page.
    fixed: {
      conversations: {
        ...knownConversation.conversations,
        auditsWithin: async () => ({ rows: [], bytes: 0, full: true }),
      },
    },
    status: 422,
    code: 'TRACE_TOO_LARGE',
  },
  {
    op: 'GET /api/v1/conversation/{id}/stream',
    url: `/api/v1/conversation/${ID}/stream`,
    fixed: unknownConversation,
    status: 404,
    code: 'CONVERSATION_NOT_FOUND',
  },
  ...[
    { fixed: unknownConversation, code: 'CONVERSATION_NOT_FOUND' },
    {
      fixed: { ...knownConversation, turns: { decideApproval: failingWith(turnNotFound(TURN)) } },
      code: 'TURN_NOT_FOUND',
    },
  ].map(({ fixed, code }) => ({
    op: 'POST /api/v1/conversation/{id}/turns/{n}/approval',
    url: `/api/v1/conversation/${ID}/turns/2/approval`,
    body: { decision: 'approve', callIndex: 1 },
    fixed,
    status: 404,
    code,
  })),
  { op: RETRY, url: `/api/v1/admin/turns/${NO_TURN_ID}/retry`, status: 400, code: 'INVALID_TURN_ID' },
  {
    op: RETRY,
    url: `/api/v1/admin/turns/${TURN}/retry`,
    fixed: { turns: { retryTurn: failingWith(turnNotFound(TURN)) } },
    status: 404,
    code: 'TURN_NOT_FOUND',
  },
  ...['TURN_ALREADY_COMPLETED', 'STALE_TURN'].map((code) => ({
    op: RETRY,
    url: `/api/v1/admin/turns/${TURN}/retry`,
    fixed: { turns: { retryTurn: failingWith(conflict(code, 'refused')) } },
    status: 409,
    code,
  })),
  {
    op: 'POST /api/v1/admin/config/refresh',
    url: '/api/v1/admin/config/refresh',
    fixed: {
      config: {
        refresh: failingWith(new EngineError(ErrorType.ConfigInvalid, 'invalid', { details: { violations: [] } })),
      },
    },
    status: 422,
    code: 'CONFIG_INVALID',
  },
  {
    op: 'POST /api/v1/admin/turns/{workflowId}/held-tool',
    url: `/api/v1/admin/turns/${NO_TURN_ID}/held-tool`,
    body: { action: 'skip' },
    status: 400,
    code: 'INVALID_TURN_ID',
  },
  {
    op: 'POST /api/v1/admin/turns/{workflowId}/held-tool',
    url: `/api/v1/admin/turns/${TURN}/held-tool`,
    body: { action: 'skip' },
    fixed: { heldTools: { resolve: failingWith(turnNotFound(TURN)) } },
    status: 404,
    code: 'TURN_NOT_FOUND',
  },
  {
    op: 'GET /api/v1/console/conversations',
    url: '/api/v1/console/conversations?status=SLEEPING',
    status: 400,
    code: 'INVALID_STATUS',
  },
  {
    op: 'GET /api/v1/console/conversations/{id}/turns',
    url: `/api/v1/console/conversations/${ID}/turns`,
    fixed: { ...unknownConversation, console: { read: (work: () => Promise<unknown>) => work() } },
    status: 404,
    code: 'CONVERSATION_NOT_FOUND',
  },
  {
    op: 'GET /api/v1/console/turns/{workflowId}',
    url: `/api/v1/console/turns/${NO_TURN_ID}`,
    status: 400,
    code: 'INVALID_TURN_ID',
  },
  {
    op: 'GET /api/v1/console/turns/{workflowId}',
    url: `/api/v1/console/turns/${TURN}`,
    fixed: { console: { retired: async () => false }, inspector: { history: async () => null } },
    status: 404,
    code: 'TURN_NOT_FOUND',
  },
  {
    op: ACTION,
    url: `/api/v1/console/turns/${NO_TURN_ID}/actions/retry`,
    body: {},
    status: 400,
    code: 'INVALID_TURN_ID',
  },
  {
    op: ACTION,
    url: `/api/v1/console/turns/${TURN}/actions/retry`,
    body: {},
    fixed: unknownConversation,
    status: 404,
    code: 'TURN_NOT_FOUND',
  },
  ...(['BAD_REQUEST', 'CONFIG_INVALID'] as const).map((code) => ({
    op: 'GET /api/v1/whatif',
    url: WHATIF,
    fixed: whatifRefusing(code),
    status: 400,
    code,
  })),
  ...(['CONVERSATION_NOT_FOUND', 'CONFIG_VERSION_NOT_FOUND'] as const).map((code) => ({
    op: 'GET /api/v1/whatif',
    url: WHATIF,
    fixed: whatifRefusing(code),
    status: 404,
    code,
  })),
  {
    op: 'GET /api/v1/whatif',
    url: WHATIF,
    fixed: whatifRefusing('CONVERSATION_RETIRED'),
    status: 410,
    code: 'CONVERSATION_RETIRED',
  },
  {
    op: 'GET /api/v1/whatif',
    url: WHATIF,
    fixed: whatifRefusing('CONVERSATION_TOO_LONG'),
    status: 422,
    code: 'CONVERSATION_TOO_LONG',
  },
];

function request({ op, url, body }: Provoked): InjectOptions {
  const method = op.split(' ')[0] as 'GET' | 'POST';
  const headers = { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) };
  return { method, url, headers, ...(body ? { payload: JSON.stringify(body) } : {}) };
}

describe('the OpenAPI document: every status a route answers is declared by its operation', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => app?.close());

  it.each(PROVOKED.map((p) => [`${p.op} ${p.status} ${p.code}`, p] as const))('%s', async (_name, provoked) => {
    app = apiWithDependenciesDown({ apiToken: TOKEN }, provoked.fixed);
    const res = await app.inject(request(provoked));
    expect([res.statusCode, res.json().error?.code]).toEqual([provoked.status, provoked.code]);
    const doc = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json() as Document;
    const operation = operations(doc).find(({ name }) => name === provoked.op);
    const declared = operation?.op.responses[String(provoked.status)]?.description ?? 'undeclared';
    expect(declared).toMatch(new RegExp(`\\b${provoked.code}\\b`));
  });
});
