/**
 * Where the API answers or takes one of a closed set, the document says which: a turn's outcome, a conversation's
 * status, the Idempotency-Key's form. Each is held to what the API does: every reply it gives conforms, and what it
 * would never give (or refuses) does not.
 */
import type { FastifyInstance } from 'fastify';
import { CONVERSATION_STATUSES } from '../../../core/session';
import { TurnOutcome } from '../../../core/turn/contracts';
import type { TurnReply } from '../../../api/ports';
import { apiWithDependenciesDown, schemaErrors, TOKEN, type Document, type Operation } from './document';

const ID = '3f0c1d52-8d2a-4c7e-9d41-2a6f1b9c7e10';
const ref = { conversationId: ID, turnNumber: 2, workflowId: `turn-${ID}-2`, runId: 'run-1' };
const at = { intent: 'ORDER', state: 'ASKED' };

/** A reply of each kind the turn gateway gives: a completed turn with each outcome, and each way a 202 comes. */
const REPLIES: TurnReply[] = [
  ...Object.values(TurnOutcome).map((outcome): TurnReply => ({
    kind: 'COMPLETED',
    ref,
    result: {
      ...at,
      success: true,
      conversationId: ID,
      turnNumber: 2,
      turnId: ref.workflowId,
      payload: { type: 'TEXT', value: 'ok' },
      context: {},
      outcome,
      configVersion: '0123456789abcdef',
    },
  })),
  {
    kind: 'AWAITING_APPROVAL',
    ref,
    pending: { ...at, toolCode: 'refund', args: {}, callIndex: 0, expiresAt: '2026-12-02T00:00:00.000Z' },
  },
  { kind: 'HELD', ref, held: { ...at, toolCode: 'refund', callIndex: 0, expiresAt: '2026-12-02T00:00:00.000Z' } },
  { kind: 'RUNNING', ref, reason: 'REPLY_TIMEOUT', ...at },
];

const MESSAGE = { path: '/api/v1/conversation/message', method: 'post' };

async function documentOf(app: FastifyInstance): Promise<Document> {
  return (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
}

/** A schema as far as these tests walk it: its properties, each with its own, and an enum. */
interface Walked {
  enum?: unknown[];
  properties: Record<string, Walked>;
}

const jsonSchema = (op: Operation | undefined, status: string) =>
  op?.responses[status]?.content?.['application/json']?.schema as Walked;

/** Sends a message the turn gateway answers with `reply`, with `key` as its Idempotency-Key when given. */
async function sendAnswered(reply: TurnReply, key?: string) {
  const app = apiWithDependenciesDown({ apiToken: TOKEN }, { turns: { sendMessage: async () => reply } });
  try {
    const res = await app.inject({
      method: 'POST',
      url: MESSAGE.path,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: JSON.stringify({ conversationId: ID, message: 'hello' }),
    });
    return { res, doc: await documentOf(app) };
  } finally {
    await app.close();
  }
}

describe('the OpenAPI document: the closed sets it declares', () => {
  it.each(REPLIES.map((r) => [r.kind === 'COMPLETED' ? `200 ${r.result.outcome}` : `202 ${r.kind}`, r] as const))(
    'declares the turn.outcome a %s reply gives, and no outcome it never gives',
    async (_outcome, reply) => {
      const { res, doc } = await sendAnswered(reply);
      const schema = jsonSchema(doc.paths[MESSAGE.path]?.[MESSAGE.method], String(res.statusCode));
      expect(schema.properties['turn']?.properties['outcome']?.enum).toEqual(expect.any(Array));
      expect(schemaErrors(schema, res.json())).toBeNull();
      const other = { ...res.json(), turn: { ...res.json().turn, outcome: 'SOMETHING_ELSE' } };
      expect(schemaErrors(schema, other)).not.toBeNull();
    }
  );

  it("declares a conversation's status as the statuses the engine writes, in GET conversation and the console", async () => {
    const app = apiWithDependenciesDown();
    const doc = await documentOf(app);
    await app.close();
    const read = jsonSchema(doc.paths['/api/v1/conversation/{id}']?.['get'], '200');
    expect(read.properties['status']?.enum).toEqual([...CONVERSATION_STATUSES]);
    const turns = jsonSchema(doc.paths['/api/v1/console/conversations/{id}/turns']?.['get'], '200');
    expect(turns.properties['conversation']?.properties['status']?.enum).toEqual(
      expect.arrayContaining([...CONVERSATION_STATUSES])
    );
  });

  it.each([
    ['a UUID', ID, true],
    ['printable ASCII with inner spaces', 'order 42/retry:1', true],
    ['one character', '~', true],
    ['200 characters', 'k'.repeat(200), true],
    ['201 characters', 'k'.repeat(201), false],
    ['a non-ASCII character', 'clé', false],
    ['a control byte', 'a\tb', false],
    ['a DEL', 'a\x7fb', false],
  ])('declares the Idempotency-Key pattern the API checks: %s', async (_what, key, taken) => {
    const reply = REPLIES[0]!;
    const { res, doc } = await sendAnswered(reply, key);
    expect([res.statusCode, res.json().error?.code]).toEqual(
      taken ? [200, undefined] : [400, 'IDEMPOTENCY_KEY_INVALID']
    );
    const parameters = (
      doc.paths[MESSAGE.path]?.[MESSAGE.method] as Operation & { parameters: { name: string; schema: object }[] }
    ).parameters;
    const schema = parameters.find((p) => p.name === 'idempotency-key')?.schema as { pattern: string };
    expect(new RegExp(schema.pattern, 'u').test(key)).toBe(taken);
  });
});
