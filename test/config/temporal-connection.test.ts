import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError, loadEnv } from '../../config/env';
import { configuredTemporal, describeTemporal, localTemporal } from '../../config/temporal-connection';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof EnvError) return err.issues.map((i) => `${i.variable}: ${i.reason}`);
    throw err;
  }
  throw new Error('expected an EnvError');
}

describe('the connection to Temporal (TEMPORAL_TLS_*, TEMPORAL_API_KEY)', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'ce-tls-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is plaintext to TEMPORAL_ADDRESS by default, and to 127.0.0.1:7233 without it', () => {
    expect(configuredTemporal(loadEnv({ TEMPORAL_ADDRESS: 'temporal:7233' }))).toEqual({ address: 'temporal:7233' });
    expect(configuredTemporal(loadEnv({}))).toEqual({ address: '127.0.0.1:7233' });
    expect(configuredTemporal(loadEnv({ TEMPORAL_ADDRESS: 'a:1' }), 'b:2').address).toBe('b:2');
    expect(describeTemporal(localTemporal('127.0.0.1:7233'))).toBe('127.0.0.1:7233 (plaintext)');
  });

  it('turns TLS on for an API key (as the Temporal CLI does) and reads every PEM file once', () => {
    const withKey = configuredTemporal(
      loadEnv({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'k' })
    );
    expect(withKey).toEqual({ address: 'ns.acct.tmprl.cloud:7233', tls: {}, apiKey: 'k' });
    expect(describeTemporal(withKey)).toBe('ns.acct.tmprl.cloud:7233 (TLS, API key)');
    const mtls = configuredTemporal(
      loadEnv({
        TEMPORAL_TLS_CLIENT_CERT_PATH: file('c.pem', PEM),
        TEMPORAL_TLS_CLIENT_KEY_PATH: file('k.pem', PEM.replaceAll('CERTIFICATE', 'PRIVATE KEY')),
        TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('ca.pem', PEM),
        TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
      })
    );
    expect(Buffer.from(mtls.tls?.clientCertPair?.crt ?? []).toString()).toBe(PEM);
    expect(Buffer.from(mtls.tls?.clientCertPair?.key ?? []).toString()).toContain('PRIVATE KEY');
    expect(Buffer.from(mtls.tls?.serverRootCACertificate ?? []).toString()).toBe(PEM);
    expect(mtls.tls?.serverNameOverride).toBe('temporal.internal');
    expect(describeTemporal(mtls)).toBe('127.0.0.1:7233 (TLS, client certificate)');
    expect(configuredTemporal(loadEnv({ TEMPORAL_TLS: 'TRUE' })).tls).toEqual({});
  });

  it('refuses what cannot be meant, every problem at once, when the environment is loaded', () => {
    expect(issuesOf(() => loadEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: '/c.pem' }))).toEqual([
      'TEMPORAL_TLS_CLIENT_KEY_PATH: is needed with TEMPORAL_TLS_CLIENT_CERT_PATH',
    ]);
    expect(
      issuesOf(() => loadEnv({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k', TEMPORAL_TLS_SERVER_NAME: 'x' }))
    ).toEqual([
      'TEMPORAL_TLS_SERVER_NAME: is set, but TEMPORAL_TLS=false turns TLS off',
      'TEMPORAL_API_KEY: would be sent in clear text: TEMPORAL_TLS=false turns TLS off (unset TEMPORAL_TLS)',
    ]);
    expect(issuesOf(() => loadEnv({ TEMPORAL_TLS: 'maybe' }))).toEqual(['TEMPORAL_TLS: must be one of true, false']);
  });

  it('stops at start on a certificate file it cannot read or that is not PEM, naming the file, not its content', () => {
    const notPem = file('key.der', 'secret-bytes-not-pem');
    const issues = issuesOf(() =>
      configuredTemporal(
        loadEnv({
          TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem'),
          TEMPORAL_TLS_CLIENT_KEY_PATH: notPem,
        })
      )
    );
    expect(issues).toEqual([
      `TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${join(dir, 'missing.pem')} (ENOENT)`,
      `TEMPORAL_TLS_CLIENT_KEY_PATH: ${notPem} is not a PEM file (no -----BEGIN line)`,
    ]);
    expect(issues.join('\n')).not.toContain('secret-bytes');
  });
});
