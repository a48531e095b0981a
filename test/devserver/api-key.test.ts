/**
 * Our dev server with an API key (DevServerOptions.apiKey, `DEVSERVER_API_KEY`), as Temporal Cloud
 * checks one: every call needs `authorization: Bearer <key>`. The key only ever travels over TLS
 * (config/temporal-connection.ts), so the client reaches the server through a TLS front.
 */
import { checkTemporal } from '../../cli/doctor/temporal';
import { loadEnv } from '../../config/env';
import { configuredTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createTestPki, startTlsProxy, type TestPki, type TlsProxy } from '../support/tls';

const KEY = 'ck-test-4f1e9a7c2b';

describe('the dev server with an API key', () => {
  let pki: TestPki;
  let server: DevServer;
  let proxy: TlsProxy;
  const check = (apiKey?: string) =>
    checkTemporal(
      configuredTemporal(
        loadEnv({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert, ...(apiKey ? { TEMPORAL_API_KEY: apiKey } : {}) }),
        proxy.address
      ),
      'default'
    );

  beforeAll(async () => {
    pki = createTestPki();
    server = await startDevServer({ port: 0, apiKey: KEY });
    proxy = await startTlsProxy(server.address, pki, { requireClientCert: false });
  });

  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
    pki?.remove();
  });

  it('answers a call that carries the key (TEMPORAL_API_KEY)', async () => {
    const findings = await check(KEY);
    expect(findings[0]).toEqual({
      check: 'temporal',
      level: 'ok',
      message: `namespace default on ${proxy.address} (TLS, API key)`,
    });
  });

  it.each([
    ['without a key', undefined],
    ['with another key', 'ck-test-wrong'],
    ['with a prefix of the key', KEY.slice(0, -1)],
  ])('refuses a call %s: UNAUTHENTICATED, without echoing any key', async (_case, apiKey) => {
    const [finding] = await check(apiKey);
    expect(finding).toMatchObject({ check: 'temporal', level: 'fail' });
    expect(finding?.message).toContain('Request unauthorized.');
    expect(finding?.message).not.toContain(KEY.slice(3));
  });
});
