/**
 * What the document declares besides bodies, walked over every operation: the headers the API sends with a status
 * (Retry-After, Link, Allow) and the statuses it answers with, so a client generated from it expects them.
 */
import { decideWith } from '../../../api/replies';
import {
  APPROVAL_REFUSAL_CODES,
  DECISION_PROBLEM_CODES,
  HELD_TOOL_REFUSAL_CODES,
  RESULT_PROBLEM_CODES,
} from '../../../core/turn/operator-decision';
import { documentedApi, operations, requestFor, schemaErrors, TOKEN, type DocumentedResponse } from './document';

const header = (response: DocumentedResponse | undefined, name: string) => response?.headers?.[name];

/** The routes whose 200 is a page of a list, naming the next one in `Link` (api/replies.ts linkNextPage). */
const PAGED = [
  'GET /api/v1/conversation/audit/{id}',
  'GET /api/v1/admin/turns/awaiting-approval',
  'GET /api/v1/console/conversations',
  'GET /api/v1/console/conversations/{id}/turns',
];

/** The routes a concurrency limit guards with a 429 (api/concurrency-limit.ts), and its code. */
const LIMITED: Record<string, string> = {
  'GET /api/v1/conversation/{id}/stream': 'TOO_MANY_STREAMS',
  'GET /api/v1/whatif': 'WHATIF_BUSY',
};

describe('the OpenAPI document: the headers and statuses it declares', () => {
  const api = documentedApi();

  it('declares Retry-After on every 503 and 429, required on a 429, and says TURN_FAILED sends none', () => {
    for (const { name, op } of operations(api.doc)) {
      if (name === 'GET /readyz') continue;
      expect({ name, retryAfter: header(op.responses['503'], 'Retry-After')?.schema }).toEqual({
        name,
        retryAfter: { type: 'integer', minimum: 1 },
      });
      if (op.responses['429'])
        expect({ name, required: header(op.responses['429'], 'Retry-After')?.required }).toEqual({
          name,
          required: true,
        });
    }
    const message = operations(api.doc).find(({ name }) => name === 'POST /api/v1/conversation/message')!.op;
    expect(header(message.responses['503'], 'Retry-After')).toMatchObject({
      description: expect.stringMatching(/TOO_MANY_MESSAGES.*never with TURN_FAILED/),
    });
    expect(message.responses['503']?.description).not.toMatch(/each with `Retry-After`/);
  });

  it('documents the 429 of each route a concurrency limit guards', () => {
    const limited = operations(api.doc).filter(({ op }) => op.responses['429']);
    expect(
      Object.fromEntries(limited.map(({ name, op }) => [name, op.responses['429']?.description?.split(':')[0]]))
    ).toEqual(LIMITED);
  });

  it("declares Link on each paged list's 200, and Allow (with 405) on every 4XX", () => {
    const withLink = operations(api.doc).filter(({ op }) => header(op.responses['200'], 'Link'));
    expect(withLink.map(({ name }) => name).sort()).toEqual([...PAGED].sort());
    for (const { name, op } of operations(api.doc)) {
      expect({ name, allow: !!header(op.responses['4XX'], 'Allow') }).toEqual({ name, allow: true });
      expect(op.responses['4XX']?.description).toContain('METHOD_NOT_ALLOWED');
    }
  });
});

describe('the OpenAPI document: operation ids', () => {
  const api = documentedApi();

  it('gives every operation an operationId of its method and path, unique in the document', () => {
    const ids = operations(api.doc).map(({ op }) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z]+[A-Za-z]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const byName = Object.fromEntries(operations(api.doc).map(({ name, op }) => [name, op.operationId]));
    expect(byName).toMatchObject({
      'GET /api/v1/conversation/{id}': 'getConversationById',
      'POST /api/v1/conversation/message': 'postConversationMessage',
      'POST /api/v1/admin/turns/{workflowId}/held-tool': 'postAdminTurnsByWorkflowIdHeldTool',
      'GET /healthz': 'getHealthz',
    });
  });
});

describe("the OpenAPI document: a 202's decideWith", () => {
  const api = documentedApi();

  it('sends a body the approval route takes as it is, a reject, with nothing a client would record unawares', () => {
    const approval = api.doc.paths['/api/v1/conversation/{id}/turns/{n}/approval']?.['post'];
    const request = (approval?.requestBody as { content: Record<string, { schema: object }> }).content[
      'application/json'
    ]!.schema;
    const { body } = decideWith('3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10', 2, 4);
    expect(schemaErrors(request, body)).toBeNull();
    expect(body).toEqual({ decision: 'reject', callIndex: 4 });
    const documented = approval?.responses['202']?.content?.['application/json']?.schema as {
      properties: { approval: { properties: { decideWith: { properties: { body: object } } } } };
    };
    expect(documented.properties.approval.properties.decideWith.properties.body).toMatchObject({
      required: ['decision'],
      properties: { decision: { enum: ['approve', 'reject'] }, reason: expect.any(Object) },
    });
  });
});

describe('the OpenAPI document: what a failed turn tells a client to do', () => {
  const api = documentedApi();

  it("tells the gateway's route to send again with a new key, and labels retryWith as the operator's", () => {
    const message = api.doc.paths['/api/v1/conversation/message']?.['post'];
    expect(message?.security).toEqual([{ apiToken: [] }, { operatorToken: [] }]);
    for (const status of ['409', '500', '503']) {
      const says = message?.responses[status]?.description ?? '';
      expect({ status, says }).toEqual({
        status,
        says: expect.stringMatching(/`retryWith` `\{method, url, access: "operator"\}`.*OPERATOR_TOKEN_REQUIRED/),
      });
    }
    expect(message?.responses['503']?.description).toMatch(/TURN_FAILED[^;]*new Idempotency-Key/);
  });
});

const APPROVAL = 'POST /api/v1/conversation/{id}/turns/{n}/approval';
const HELD_TOOL = 'POST /api/v1/admin/turns/{workflowId}/held-tool';
const CONSOLE_ACTION = 'POST /api/v1/console/turns/{workflowId}/actions/{action}';
const only = (codes: readonly string[], without: readonly string[]) => codes.filter((c) => !without.includes(c));

/**
 * The codes each route answers, by status, from the lists they are answered from (core/turn/operator-decision.ts)
 * and the routes' own throws (api/turns, api/routes): the document must name each under its status.
 */
const ANSWERED: Record<string, Record<string, readonly string[]>> = {
  [APPROVAL]: {
    400: [...only(DECISION_PROBLEM_CODES, only(RESULT_PROBLEM_CODES, ['RESULT_NOT_ALLOWED'])), 'VALIDATION_FAILED'],
    409: [...APPROVAL_REFUSAL_CODES, 'TURN_FAILED'],
  },
  [HELD_TOOL]: {
    400: [...only(DECISION_PROBLEM_CODES, ['CALL_INDEX_REQUIRED']), 'VALIDATION_FAILED'],
    409: HELD_TOOL_REFUSAL_CODES,
  },
  [CONSOLE_ACTION]: {
    400: [...DECISION_PROBLEM_CODES, 'ACTIVITY_ID_REQUIRED', 'VALIDATION_FAILED'],
    409: [...new Set([...APPROVAL_REFUSAL_CODES, ...HELD_TOOL_REFUSAL_CODES]), 'TURN_NOT_RUNNING', 'TURN_FAILED'],
  },
};

describe('the OpenAPI document: the codes each route answers', () => {
  const api = documentedApi();
  const operation = (name: string) => operations(api.doc).find((o) => o.name === name)!;

  it('names each code a route answers under the status it answers it with', () => {
    const missing = Object.entries(ANSWERED).flatMap(([name, byStatus]) =>
      Object.entries(byStatus).flatMap(([status, codes]) => {
        const says = operation(name).op.responses[status]?.description ?? '';
        return codes
          .filter((code) => !new RegExp(`\\b${code}\\b`).test(says))
          .map((code) => `${name} ${status} ${code}`);
      })
    );
    expect(missing).toEqual([]);
  });

  it.each([
    ['{"approved":true}', 'INVALID_DECISION'],
    ['{"decision":"approve","callIndex":"0"}', 'INVALID_CALL_INDEX'],
    ['{"decision":"approve"}', 'CALL_INDEX_REQUIRED'],
    ['{"decision":"approve","callIndex":0,"note":"x"}', 'VALIDATION_FAILED'],
  ])('answers the approval route %s with 400 %s, which its 400 names', async (body, code) => {
    const { method, path, op } = operation(APPROVAL);
    const res = await api.app.inject(requestFor(APPROVAL, method, path, { authorization: `Bearer ${TOKEN}`, body }));
    expect([res.statusCode, res.json().error.code]).toEqual([400, code]);
    expect(op.responses['400']?.description).toContain(`${code}: `);
  });
});
