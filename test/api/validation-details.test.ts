import type { InjectOptions } from 'fastify';
import { buildApi } from '../../api/app';
import { validationRefusal } from '../../api/validation-refusal';
import { fakeConsolePorts, fakePorts } from '../support/fake-ports';

const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';

describe('400 VALIDATION_FAILED says in `details` which input failed which keyword of the schema', () => {
  const app = buildApi({
    ports: fakePorts({}),
    console: fakeConsolePorts(),
    messageMaxBytes: 8192,
    logLevel: 'silent',
  });
  afterAll(async () => app.close());

  /** The refusal's error, checked to say nothing of the validator's own (schema paths, Ajv's names). */
  async function refusal(request: InjectOptions) {
    const res = await app.inject(request);
    expect(res.statusCode).toBe(400);
    expect(res.body).not.toMatch(/schemaPath|#\/properties|instancePath|ajv/i);
    return res.json().error;
  }

  it.each([
    ['a missing field', '{}', 'message', 'required'],
    ['a field of the wrong type', '{"message": 42}', 'message', 'type'],
    ['an empty message', '{"message": ""}', 'message', 'minLength'],
    ['a field the route does not take', '{"message": "hi", "text": "hi"}', 'text', 'additionalProperties'],
    ['a malformed conversation id', '{"message": "hi", "conversationId": "abc"}', 'conversationId', 'pattern'],
  ])('POST message with %s: in body, its field and keyword', async (_what, payload, field, problem) => {
    const headers = { 'content-type': 'application/json' };
    const error = await refusal({ method: 'POST', url: '/api/v1/conversation/message', headers, payload });
    expect(error).toEqual({
      code: 'VALIDATION_FAILED',
      message: expect.any(String),
      details: { in: 'body', field, problem },
    });
  });

  it.each([
    ['a path parameter', '/api/v1/conversation/not-a-uuid', {}, ['path', 'id', 'pattern']],
    [
      'a query parameter over its length',
      `/api/v1/console/conversations?intent=${'A'.repeat(101)}`,
      {},
      ['query', 'intent', 'maxLength'],
    ],
    [
      'a query parameter not taken',
      '/api/v1/console/conversations?sort=x',
      {},
      ['query', 'sort', 'additionalProperties'],
    ],
    [
      'a header',
      `/api/v1/conversation/${CONVERSATION}/stream`,
      { 'last-event-id': 'x' },
      ['header', 'last-event-id', 'pattern'],
    ],
  ])('GET with %s: where it is, its name and keyword', async (_what, url, headers, [place, field, problem]) => {
    const error = await refusal({ method: 'GET', url, headers });
    expect([error.code, error.details]).toEqual(['VALIDATION_FAILED', { in: place, field, problem }]);
  });

  it('names a nested body field as the other 400s do, and a keyword it does not know only as invalid', () => {
    const nested = validationRefusal([{ keyword: 'type', instancePath: '/inputParams/a~1b/0', message: 'x' }], 'body');
    expect(nested.error.details).toEqual({ in: 'body', field: 'inputParams["a/b"][0]', problem: 'type' });
    const whole = validationRefusal([{ keyword: 'type', instancePath: '' }], 'body');
    expect(whole.error.details).toEqual({ in: 'body', field: '', problem: 'type' });
    const odd = validationRefusal([{ keyword: 'x-<script>', instancePath: '/q' }], 'querystring');
    expect(odd.error.details).toEqual({ in: 'query', field: 'q', problem: 'invalid' });
  });
});
