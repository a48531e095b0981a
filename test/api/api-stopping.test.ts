/**
 * A request that reaches the API while it closes (before the listener is closed, or on a connection still open) is
 * refused with the 503 the OpenAPI document promises, in the error envelope, not Fastify's own body; /readyz says
 * not ready in its own shape, so a load balancer sends requests elsewhere.
 */
import Ajv from 'ajv';
import { buildApi } from '../../api/app';
import { fakePorts } from '../support/fake-ports';

type Document = { paths: Record<string, Record<string, { responses: Record<string, ResponseDoc> }>> };
type ResponseDoc = { content?: Record<string, { schema: object }> };

describe('an API that is closing', () => {
  it('answers 503 API_STOPPING in the documented envelope, and /readyz 503 not ready', async () => {
    const app = buildApi({ ports: fakePorts({}), messageMaxBytes: 8192, logLevel: 'silent' });
    // Held until the requests below are answered: the listener stays open meanwhile, as after the API's own hooks.
    let answered!: () => void;
    app.addHook('preClose', () => new Promise<void>((resolve) => (answered = resolve)));
    const doc: Document = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const closed = app.close();
    try {
      const healthz = await fetch(`${url}/healthz`);
      expect(healthz.status).toBe(503);
      expect(healthz.headers.get('connection')).toBe('close');
      const refused = await healthz.json();
      expect(refused).toEqual({ error: { code: 'API_STOPPING', message: expect.stringMatching(/stopping/) } });

      const readyz = await fetch(`${url}/readyz`);
      expect(readyz.status).toBe(503);
      const notReady = await readyz.json();
      expect(notReady).toEqual({ status: 'not ready', checks: { api: 'stopping' } });

      const ajv = new Ajv({ strict: false });
      const schemaOf = (path: string) => doc.paths[path]?.['get']?.responses['503']?.content?.['application/json'];
      expect(ajv.validate(schemaOf('/healthz')?.schema ?? false, refused)).toBe(true);
      expect(ajv.validate(schemaOf('/readyz')?.schema ?? false, notReady)).toBe(true);
    } finally {
      answered();
      await closed;
    }
  });
});
