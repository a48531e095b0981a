/**
 * A variable under the engine's prefixes that it does not read is warned of, one line each with the known name it
 * most likely meant: `LOG_LEVL=debug` or `TEMPORAL_ADRESS=x` were ignored without a word. Other programs' variables
 * that share a prefix (the Temporal CLI's, Node's, OpenTelemetry's, the tools' CONVENGINE_TOOL_*) are not.
 */
import { ENV_VARIABLES, unknownEnvWarnings } from '../../config/env';
import { FOREIGN_VARIABLES, SHARED_PREFIXES } from '../../config/env-unknown';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

describe('unknownEnvWarnings', () => {
  it('names each unknown variable under an engine prefix, with the one it most likely meant', () => {
    expect(
      unknownEnvWarnings({
        LOG_LEVL: 'debug',
        WORKER_SHUTDOWN_GRACE: '30000',
        OPERATOR_TOKEN: 'abc',
        TEMPORAL_ADRESS: 'x',
        DEVSERVER_FOO: '1',
      })
    ).toEqual([
      'warning: DEVSERVER_FOO is set, but convengine reads no such variable and ignores it (docs/configuration.md lists the variables)',
      'warning: LOG_LEVL is set, but convengine reads no such variable and ignores it: did you mean LOG_LEVEL?',
      'warning: OPERATOR_TOKEN is set, but convengine reads no such variable and ignores it: did you mean OPERATOR_API_TOKEN?',
      'warning: TEMPORAL_ADRESS is set, but convengine reads no such variable and ignores it: did you mean TEMPORAL_ADDRESS?',
      'warning: WORKER_SHUTDOWN_GRACE is set, but convengine reads no such variable and ignores it: did you mean WORKER_SHUTDOWN_GRACE_MS?',
    ]);
  });

  it("says nothing of known variables, of others' under a shared prefix, nor of other prefixes", () => {
    const source = {
      ...Object.fromEntries(ENV_VARIABLES.map((name) => [name, 'x'])),
      CONVENGINE_TOOL_PARTNER_URL: 'http://partner',
      CONVENGINE_USE_SOURCES: '1',
      TEMPORAL_CLI_SHOW_STACKS: '1',
      TEMPORAL_GRPC_META_X_TENANT: 't',
      TEMPORAL_TLS_CLIENT_CERT_DATA: 'pem',
      TEMPORAL_ENV: 'prod',
      TEMPORAL_DB_PASSWORD: 'p',
      NODE_OPTIONS: '--max-old-space-size=4096',
      NODE_EXTRA_CA_CERTS: '/ca.pem',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=b',
      OTEL_RESOURCE_ATTRIBUTES: 'a=b',
      ANTHROPIC_AUTH_TOKEN: 't',
      PATH: '/bin',
      BENCH_ONLY: 'x',
      APP_DB_PASSWORD: 'p',
    };
    expect(unknownEnvWarnings(source)).toEqual([]);
  });

  it('warns of a near miss under a shared prefix: a typo of ours, not their variable', () => {
    expect(unknownEnvWarnings({ NODE_EVN: 'production', ANTHROPIC_API_KY: 'k', OTEL_SERVICE_NAM: 'x' })).toEqual([
      'warning: ANTHROPIC_API_KY is set, but convengine reads no such variable and ignores it: did you mean ANTHROPIC_API_KEY?',
      'warning: NODE_EVN is set, but convengine reads no such variable and ignores it: did you mean NODE_ENV?',
      'warning: OTEL_SERVICE_NAM is set, but convengine reads no such variable and ignores it: did you mean OTEL_SERVICE_NAME?',
    ]);
  });

  it('allows no name it knows and shares no prefix that is none of its own', () => {
    const prefixes = new Set(ENV_VARIABLES.filter((n) => n.includes('_')).map((n) => n.slice(0, n.indexOf('_') + 1)));
    for (const prefix of SHARED_PREFIXES) expect(prefixes).toContain(prefix);
    for (const foreign of FOREIGN_VARIABLES) expect(ENV_VARIABLES).not.toContain(foreign);
  });
});

describe('every command warns of them at its start', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());

  it('validate-config: one line each, on stderr, and still runs', async () => {
    const run = await runConvengine(['validate-config'], {
      DATABASE_URL: tdb.url,
      LOG_LEVL: 'debug',
      WORKER_SHUTDOWN_GRACE: '30000',
      OPERATOR_TOKEN: 'abc',
    });
    expect(run.stderr.split('\n').filter((l) => l.startsWith('warning: '))).toEqual([
      expect.stringMatching(/^warning: LOG_LEVL .*did you mean LOG_LEVEL\?$/),
      expect.stringMatching(/^warning: OPERATOR_TOKEN .*did you mean OPERATOR_API_TOKEN\?$/),
      expect.stringMatching(/^warning: WORKER_SHUTDOWN_GRACE .*did you mean WORKER_SHUTDOWN_GRACE_MS\?$/),
    ]);
  });

  it('migrate, with an environment that is otherwise invalid too', async () => {
    const run = await runConvengine(['migrate'], { DATABASE_URL: tdb.url, TEMPORAL_ADRESS: 'x' });
    expect({ code: run.code, stderr: run.stderr.split('\n')[0] }).toEqual({
      code: 0,
      stderr: expect.stringMatching(/^warning: TEMPORAL_ADRESS .*did you mean TEMPORAL_ADDRESS\?$/),
    });
    const invalid = await runConvengine(['migrate'], { DATABASE_URL: tdb.url, LOG_LEVL: 'x', PORT: 'abc' });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^warning: LOG_LEVL .*\nInvalid environment[^\n]*\n {2}PORT: /);
  });
});
