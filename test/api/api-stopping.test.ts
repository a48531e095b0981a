/**
 * A request that reaches the API while it closes (before the listener is closed, or on a connection still open) is
 * refused with the 503 the OpenAPI document promises, in the error envelope, not Fastify's own body; /readyz says
 * not ready in its own shape, so a load balancer sends requests elsewhere. An idle keep-alive connection is closed
 * when the listener closes (docs/architecture.md, Stop), as Node's server.close() does: its next request goes, on a
 * new connection, to another process.
 */
import net, { type AddressInfo } from 'node:net';
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

describe('an API that stops listening', () => {
  it('closes an idle keep-alive connection without an answer; the client opens a new one for its next request', async () => {
    const app = buildApi({ ports: fakePorts({}), messageMaxBytes: 8192, logLevel: 'silent' });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('GET /healthz HTTP/1.1\r\nHost: api\r\n\r\n');
    while (!received.includes('\r\n\r\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).not.toMatch(/connection: close/i);
    const answered = received.length;
    await app.close();
    await ended;
    // Nothing was written to it after the first answer: no 503, only the close.
    expect(received.length).toBe(answered);
  });
});
