import fc from 'fast-check';
import { buildApi } from '../../api/app';
import { firstJsonLoss } from '../../core/json-loss';
import { fakePorts } from '../support/fake-ports';

describe('what JSON.parse would lose, found in the text (core/json-loss.ts)', () => {
  it.each([
    ['{"message":"hi","message":"hello"}', 'message'],
    ['{"inputParams":{"a":{"b":1,"c":{},"b":2}}}', 'inputParams.a.b'],
    ['{"inputParams":{"list":[{"b":1},{"b":2, "b" : 3}]}}', 'inputParams.list[1].b'],
    ['{"a":1,"\\u0061":2}', 'a'],
    ['{"a b":1,"a b":1}', '["a b"]'],
    ['{"x":{"a b":{"k":"v\\"","k":1}}}', 'x["a b"].k'],
  ])('a key given twice: %s names %s', (text, field) => {
    expect(firstJsonLoss(text)).toEqual({ kind: 'DUPLICATE_KEY', field });
  });

  it.each([
    ['{"inputParams":{"n":1e400}}', 'inputParams.n', '1e400'],
    ['{"inputParams":{"n":-1E+400}}', 'inputParams.n', '-1E+400'],
    ['{"inputParams":{"n":1e-400}}', 'inputParams.n', '1e-400'],
    ['{"inputParams":{"n":123456789012345678901234567890}}', 'inputParams.n', '123456789012345678901234567890'],
    ['{"a":[1,2,{"b":[0, 9007199254740993]}]}', 'a[2].b[1]', '9007199254740993'],
    ['{"a":0.10000000000000000001}', 'a', '0.10000000000000000001'],
    ['1e400', 'body', '1e400'],
  ])('a number a double does not hold: %s names %s', (text, field, number) => {
    expect(firstJsonLoss(text)).toEqual({ kind: 'INEXACT_NUMBER', field, number });
  });

  it.each([
    '{"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":2}]}',
    '{"k":"he said \\"k\\": 1, \\"k\\": 2","j":"\\\\","l":"\\\\\\"k\\":"}',
    '{"n":[0.1, -0, 0.0, 1.50, 6.02e23, 1E5, 9007199254740992, 18014398509481984, 1.7976931348623157e308, 5e-324]}',
    '{"k":"1e400","1e400":true,"123456789012345678901234567890":null}',
  ])('keeps %s, which JSON.parse reads whole', (text) => {
    expect(firstJsonLoss(text)).toBeNull();
  });

  it('names a field nested a million deep by its first 32 levels', () => {
    const depth = 1_000_000;
    const loss = firstJsonLoss(`${'['.repeat(depth)}1e400${']'.repeat(depth)}`);
    expect(loss).toEqual({ kind: 'INEXACT_NUMBER', field: `${'[0]'.repeat(32)}…[0]`, number: '1e400' });
  });

  it('finds nothing in any JSON that JavaScript wrote', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => expect(firstJsonLoss(JSON.stringify(value))).toBeNull()),
      { numRuns: 500 }
    );
  });
});

describe('the JSON body parser refuses what it would lose, on every route (api/json-body.ts)', () => {
  const app = buildApi({
    ports: {
      ...fakePorts({}),
      // A body that gets past the parser and the schema reaches the route, which answers this.
      readiness: { check: async () => ({ checks: {} }), turnBlocker: async () => ({ code: 'REACHED', message: '' }) },
    },
    messageMaxBytes: 8192,
    logLevel: 'silent',
  });
  afterAll(async () => app.close());
  const post = (url: string, payload: string) =>
    app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload });

  it('refuses a key given twice with 400 MALFORMED_BODY naming it, at any depth', async () => {
    const res = await post('/api/v1/conversation/message', '{"message":"hi","message":"hello"}');
    expect([res.statusCode, res.json()]).toEqual([
      400,
      {
        error: {
          code: 'MALFORMED_BODY',
          message: 'The request body gives message more than once; send each key once.',
          details: { field: 'message' },
        },
      },
    ]);
    const deep = await post('/api/v1/conversation/message', '{"message":"hi","inputParams":{"a":[{"x":1,"x":1}]}}');
    expect([deep.statusCode, deep.json().error.code, deep.json().error.details]).toEqual([
      400,
      'MALFORMED_BODY',
      { field: 'inputParams.a[0].x' },
    ]);
    const admin = await post('/api/v1/admin/config/refresh', '{"a":1,"a":2}');
    expect([admin.statusCode, admin.json().error.details]).toEqual([400, { field: 'a' }]);
  });

  it.each([
    ['1e400', '1e400'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
  ])('refuses inputParams.n = %s with 400 INEXACT_NUMBER naming the field', async (number, shown) => {
    const res = await post('/api/v1/conversation/message', `{"message":"hi","inputParams":{"n":${number}}}`);
    expect([res.statusCode, res.json()]).toEqual([
      400,
      {
        error: {
          code: 'INEXACT_NUMBER',
          message:
            `inputParams.n is the number ${shown}, which a double (what the engine computes with) does not hold ` +
            'exactly; send it as a string to keep it as written.',
          details: { field: 'inputParams.n' },
        },
      },
    ]);
  });

  it('takes numbers a double holds, and the same key in different objects', async () => {
    const body = '{"message":"hi","inputParams":{"n":0.1,"big":6.02e23,"a":{"n":-0},"b":[{"n":1},{"n":2}]}}';
    const res = await post('/api/v1/conversation/message', body);
    expect([res.statusCode, res.json().error.code]).toEqual([503, 'REACHED']);
  });

  it('still answers malformed JSON as before, before looking for what it would lose', async () => {
    const res = await post('/api/v1/conversation/message', '{"message":"hi","message":');
    expect([res.statusCode, res.json().error.code, res.json().error.details]).toEqual([
      400,
      'MALFORMED_BODY',
      undefined,
    ]);
  });
});
