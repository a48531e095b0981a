/**
 * The worker, the gateway and the CLI on a secured Temporal: TLS with client certificates (mTLS) in
 * front of the test server, as a secured cluster or Temporal Cloud is reached. Runs on our dev server
 * and, in `npm run test:temporal`, on the real one; neither serves TLS itself, so a TLS front does.
 */
import { checkTemporal } from '../../cli/doctor/temporal';
import { loadEnv } from '../../config/env';
import { configuredTemporal, localTemporal } from '../../config/temporal-connection';
import { runConvengine } from '../support/run-cli';
import { TelemetryStack } from '../support/telemetry-stack';
import { createTestPki, startTlsProxy, type TestPki, type TlsProxy } from '../support/tls';

jest.setTimeout(120_000);

describe('a secured Temporal (mTLS)', () => {
  let pki: TestPki;
  let proxy: TlsProxy | undefined;
  let stack: TelemetryStack | undefined;
  let namespace = 'default';
  const mtlsEnv = () => ({
    TEMPORAL_TLS_CLIENT_CERT_PATH: pki.clientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: pki.clientKey,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
  });
  const proxyAddress = () => {
    if (!proxy) throw new Error('no TLS proxy');
    return proxy.address;
  };

  beforeAll(async () => {
    pki = createTestPki();
    namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
    stack = await TelemetryStack.start({
      connectVia: async (address) => {
        proxy = await startTlsProxy(address, pki, { requireClientCert: true });
        return configuredTemporal(loadEnv(mtlsEnv()), proxy.address);
      },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await proxy?.close();
    pki?.remove();
  });

  it('runs a seed turn end to end: the worker and the gateway both connect over mTLS', async () => {
    const turn = await stack!.seedTurn();
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED' });
  });

  it('convengine doctor connects from the TEMPORAL_TLS_* variables and says how', async () => {
    const run = await runConvengine(['doctor', '--address', proxyAddress(), '--namespace', namespace, '--json'], {
      ...mtlsEnv(),
      DATABASE_URL: '',
    });
    const temporal = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { check: string; level: string; message: string })
      .find((f) => f.check === 'temporal');
    expect(temporal).toEqual({
      check: 'temporal',
      level: 'ok',
      message: `namespace ${namespace} on ${proxyAddress()} (TLS, client certificate)`,
    });
  });

  it.each([
    ['without a client certificate', /certificate required/, () => ({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert })],
    [
      "with a certificate the server's CA did not sign",
      /refused the client certificate/,
      () => ({
        TEMPORAL_TLS_CLIENT_CERT_PATH: pki.strangerCert,
        TEMPORAL_TLS_CLIENT_KEY_PATH: pki.strangerKey,
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.caCert,
      }),
    ],
    [
      'trusting another CA than the one that signed the server',
      /self-signed certificate/,
      () => ({ ...mtlsEnv(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: pki.strangerCert }),
    ],
  ])('is refused %s, with the reason and no secret', async (_case, why, variables) => {
    const findings = await checkTemporal(configuredTemporal(loadEnv(variables()), proxyAddress()), namespace);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ check: 'temporal', level: 'fail' });
    expect(findings[0]?.message).toMatch(new RegExp(`^cannot use namespace ${namespace} on ${proxyAddress()} \\(TLS`));
    expect(findings[0]?.message).toMatch(why);
    expect(findings[0]?.message).not.toMatch(/BEGIN|PRIVATE KEY/);
  });

  it('is refused in plaintext', async () => {
    const [finding] = await checkTemporal(localTemporal(proxyAddress()), namespace);
    expect(finding).toMatchObject({ check: 'temporal', level: 'fail' });
    expect(finding?.message).toContain('(plaintext)');
  });
});
