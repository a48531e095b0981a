import { MESSAGE_REFUSALS } from '../../../api/message-refusals';
import { documentedApi, operations, requestFor, TOKEN, type Operation } from './document';

const MESSAGE = 'POST /api/v1/conversation/message';

/** The description of the response the document gives for `status`: the exact one, else its range (4XX). */
const describedFor = (op: Operation, status: number): string =>
  op.responses[String(status)]?.description ?? op.responses[`${Math.floor(status / 100)}XX`]?.description ?? '';

function nested(depth: number): object {
  let value: object = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/**
 * The message route documents each code it answers under the status it answers it with: its own refusals, from the
 * table the route and the turn gateway build them from (api/message-refusals.ts), and what any JSON body may get.
 */
describe('the OpenAPI document: what POST /api/v1/conversation/message refuses', () => {
  const api = documentedApi();
  const message = () => operations(api.doc).find(({ name }) => name === MESSAGE)!;

  it('lists every refusal of the route under its own status, and says what the Idempotency-Key is', () => {
    const { op } = message();
    for (const [code, { status }] of Object.entries(MESSAGE_REFUSALS)) {
      expect({ code, status, documented: op.responses[String(status)]?.description }).toEqual({
        code,
        status,
        documented: expect.stringContaining(`${code}: `),
      });
    }
    const parameters = (op as Operation & { parameters: { name: string; description?: string }[] }).parameters;
    const key = parameters.find(({ name }) => name === 'idempotency-key');
    expect(key?.description).toMatch(/attaches to the turn the first one started/);
  });

  const cases: [string, { body?: object | string; headers?: Record<string, string | string[]> }, number, string][] = [
    ['a blank message', { body: { message: '  ' } }, 400, 'MESSAGE_BLANK'],
    ['a message over MESSAGE_MAX_BYTES', { body: { message: 'x'.repeat(9000) } }, 413, 'MESSAGE_TOO_LARGE'],
    [
      'inputParams over INPUT_PARAMS_MAX_BYTES',
      { body: { message: 'hi', inputParams: { a: 'x'.repeat(17 * 1024) } } },
      413,
      'INPUT_PARAMS_TOO_LARGE',
    ],
    ['inputParams nested too deep', { body: { message: 'hi', inputParams: nested(20) } }, 400, 'TOO_DEEP'],
    ['a NUL in the message', { body: { message: 'a\u0000b' } }, 400, 'INVALID_TEXT'],
    ['two Idempotency-Key headers', { headers: { 'idempotency-key': ['a', 'b'] } }, 400, 'IDEMPOTENCY_KEY_REPEATED'],
    ['a non-ASCII Idempotency-Key', { headers: { 'idempotency-key': 'clé' } }, 400, 'IDEMPOTENCY_KEY_INVALID'],
    [
      'a control byte in the Idempotency-Key',
      { headers: { 'idempotency-key': 'a\tb' } },
      400,
      'IDEMPOTENCY_KEY_INVALID',
    ],
    [
      'an Idempotency-Key over 200 characters',
      { headers: { 'idempotency-key': 'k'.repeat(201) } },
      400,
      'IDEMPOTENCY_KEY_INVALID',
    ],
    ['a gzip-encoded body', { headers: { 'content-encoding': 'gzip' } }, 415, 'UNSUPPORTED_CONTENT_ENCODING'],
    ['a body in two codings', { headers: { 'content-encoding': 'identity, br' } }, 415, 'UNSUPPORTED_CONTENT_ENCODING'],
  ];

  it.each(cases)('answers %s with a status and code it documents', async (_what, sent, status, code) => {
    const { method, path, op } = message();
    const body = typeof sent.body === 'string' ? sent.body : JSON.stringify(sent.body ?? { message: 'hello' });
    const request = requestFor(MESSAGE, method, path, { authorization: `Bearer ${TOKEN}`, body });
    request.headers = { ...request.headers, ...sent.headers };
    const res = await api.app.inject(request);
    expect({ status: res.statusCode, code: res.json().error?.code }).toEqual({ status, code });
    expect(describedFor(op, status)).toContain(code);
  });

  it('takes a key of printable ASCII with inner spaces, and a body declared identity', async () => {
    const { method, path } = message();
    const request = requestFor(MESSAGE, method, path);
    request.headers = { ...request.headers, 'idempotency-key': 'order 42/retry:1', 'content-encoding': 'identity' };
    // Past every check of the request: the (failing) turn port answers, as a lost database.
    const res = await api.app.inject(request);
    expect([res.statusCode, res.json().error.code]).toEqual([503, 'DATABASE_UNREACHABLE']);
  });
});
