import { errorSchema } from '../../../api/schemas/common';
import {
  documentedApi,
  operations,
  requestFor,
  schemaErrors,
  TOKEN,
  type Operation,
  type DocumentedResponse,
} from './document';

/** The routes that reach no dependency, and /readyz, which says what is down in its own body. */
const ANSWER_WITHOUT_DEPENDENCIES = ['GET /healthz', 'GET /readyz', 'GET /api/v1/console/meta'];

/** The response the document gives for `status`: the exact one, else its range (5XX). */
const documentedFor = (op: Operation, status: number): DocumentedResponse | undefined =>
  op.responses[String(status)] ?? op.responses[`${Math.floor(status / 100)}XX`];

/**
 * Each route documents the error envelope of the one error handler (4XX, 500, 503), and its answer with its
 * dependencies down is a response it documents, in the documented shape.
 */
describe('the OpenAPI document (api/openapi.ts): the errors it documents', () => {
  const api = documentedApi();

  it("documents on every route the error handler's envelope for 4XX, 500 and 503 (/readyz: its own 503)", () => {
    for (const { name, op } of operations(api.doc)) {
      for (const status of ['4XX', '500', ...(name === 'GET /readyz' ? [] : ['503'])]) {
        const schema = op.responses[status]?.content?.['application/json']?.schema;
        expect({ name, status, schema }).toEqual({ name, status, schema: errorSchema });
      }
      expect({ name, says: op.responses['503']?.description }).toEqual({
        name,
        says: expect.stringMatching(name === 'GET /readyz' ? /not ok/ : /DATABASE_UNREACHABLE.*API_STOPPING/),
      });
    }
  });

  it('names WORKER_UNAVAILABLE exactly where a decision is sent to a worker', () => {
    const naming = operations(api.doc).filter(({ op }) =>
      op.responses['503']?.description?.includes('WORKER_UNAVAILABLE')
    );
    expect(naming.map(({ name }) => name).sort()).toEqual([
      'POST /api/v1/admin/turns/{workflowId}/held-tool',
      'POST /api/v1/console/turns/{workflowId}/actions/{action}',
      'POST /api/v1/conversation/{id}/turns/{n}/approval',
    ]);
  });

  it.each([
    ['a key given twice', '{"a":1,"a":2}', 'MALFORMED_BODY'],
    ['a number a double does not hold', '{"a":1e400}', 'INEXACT_NUMBER'],
  ])('answers %s with the 400 it documents, on exactly the routes that take a JSON body', async (_loss, text, code) => {
    const naming = operations(api.doc).filter(({ op }) => op.responses['400']?.description?.includes(code));
    const takingBody = operations(api.doc).filter(({ op }) => op.requestBody);
    expect(naming.map(({ name }) => name)).toEqual(takingBody.map(({ name }) => name));
    expect(takingBody.length).toBeGreaterThan(0);
    for (const { name, method, path, op } of takingBody) {
      const res = await api.app.inject(
        requestFor(name, method, path, { authorization: `Bearer ${TOKEN}`, body: text })
      );
      expect({ name, status: res.statusCode, error: res.json().error }).toEqual({
        name,
        status: 400,
        error: expect.objectContaining({ code, details: { field: 'a' } }),
      });
      const schema = op.responses['400']?.content?.['application/json']?.schema ?? {};
      expect({ name, errors: schemaErrors(schema, res.json()) }).toEqual({ name, errors: null });
    }
  });

  it('answers each route, with the database down, with a response it documents, in its documented shape', async () => {
    const unavailable: string[] = [];
    for (const { name, method, path, op } of operations(api.doc)) {
      const res = await api.app.inject(requestFor(name, method, path));
      const documented = documentedFor(op, res.statusCode);
      expect({ name, status: res.statusCode, documented: !!documented }).toEqual({
        name,
        status: res.statusCode,
        documented: true,
      });
      const schema = documented?.content?.['application/json']?.schema;
      if (schema) expect({ name, errors: schemaErrors(schema, res.json()) }).toEqual({ name, errors: null });
      if (res.statusCode === 503 && res.json().error?.code === 'DATABASE_UNREACHABLE') unavailable.push(name);
    }
    const documented = operations(api.doc).map(({ name }) => name);
    expect(unavailable.sort()).toEqual(documented.filter((name) => !ANSWER_WITHOUT_DEPENDENCIES.includes(name)).sort());
  });
});
