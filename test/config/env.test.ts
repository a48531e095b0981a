import { loadEnv, requireDatabaseUrl } from '../../config/env';
import { workerShutdownOptions } from '../../worker/worker';
import { INTEGER_RULE } from '../../config/env-values';
import { issuesOf } from './env-issues';

describe('loadEnv', () => {
  it('applies the documented defaults to an empty environment', () => {
    expect(loadEnv({})).toEqual({
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'convengine-turns',
      CONVENGINE_TEMPORAL: 'auto',
      ANTHROPIC_MODEL: 'claude-sonnet-4-6',
      LLM_TIMEOUT_MS: 60000,
      LLM_MAX_TOKENS: 1024,
      LLM_REPLY_MAX_BYTES: 262144,
      PORT: 3000,
      HOST: '127.0.0.1',
      MESSAGE_MAX_BYTES: 8192,
      INPUT_PARAMS_MAX_BYTES: 16384,
      API_SHUTDOWN_DELAY_MS: 5000,
      API_DB_POOL_MAX: 10,
      API_DB_QUERY_TIMEOUT_MS: 30_000,
      WORKER_DB_POOL_MAX: 20,
      WORKER_TOOLS_POOL_MAX: 5,
      STREAM_MAX_CONNECTIONS: 100,
      TURN_REPLY_TIMEOUT_MS: 60000,
      OPERATOR_DECISION_TIMEOUT_MS: 10000,
      TEMPORAL_CALL_TIMEOUT_MS: 5000,
      TEMPORAL_CLI_READY_TIMEOUT_MS: 60000,
      WHATIF_CONCURRENCY: 2,
      WHATIF_MAX_TURNS: 200,
      CLAIM_CHECK_THRESHOLD_BYTES: 32768,
      DEVSERVER_RETENTION_MS: 86400000,
      WORKER_SHUTDOWN_GRACE_MS: 5000,
      WORKER_DB_LOCK_TIMEOUT_MS: 10000,
      WORKER_DB_QUERY_TIMEOUT_MS: 30000,
      MIGRATE_LOCK_WAIT_MS: 600000,
      LOG_LEVEL: 'info',
      OTEL_SERVICE_NAME: 'convengine',
      TEMPORAL_GRPC_COMPRESSION: 'none',
    });
  });

  it('parses a full environment and treats blank values as unset', () => {
    const env = loadEnv({
      DATABASE_URL: 'postgres://app:secret@db:5432/convengine',
      TOOLS_DATABASE_URL: 'postgresql://tools@db:5432/convengine',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'prod',
      TEMPORAL_TASK_QUEUE: 'turns',
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4010',
      ANTHROPIC_MODEL: 'claude-x',
      LLM_TIMEOUT_MS: '1500',
      LLM_MAX_TOKENS: '64',
      PORT: '0',
      API_TOKEN: 't0ken',
      MESSAGE_MAX_BYTES: '100',
      LOG_LEVEL: 'DEBUG',
      TEMPORAL_GRPC_COMPRESSION: ' GZIP ',
      UNRELATED: 'ignored',
    });
    expect(env).toMatchObject({
      TEMPORAL_ADDRESS: 'temporal:7233',
      LLM_TIMEOUT_MS: 1500,
      PORT: 0,
      LOG_LEVEL: 'debug',
      TEMPORAL_GRPC_COMPRESSION: 'gzip',
    });
    expect(loadEnv({ PORT: ' ', DATABASE_URL: '' })).toMatchObject({ PORT: 3000, DATABASE_URL: undefined });
  });

  // Read once here, not where they are used (worker/bundle.ts, cli/commands/devserver.ts, cli/stack/parts.ts).
  it('reads the workflow bundle, dev server key and demo tool server variables, blank as unset but the key', () => {
    expect(
      loadEnv({
        NODE_ENV: 'production',
        CONVENGINE_WORKFLOW_BUNDLE: '/srv/workflow-bundle.js',
        DEVSERVER_API_KEY: 's3cret',
        CONVENGINE_TOOL_DEMO_URL: 'http://tools.internal:8080',
      })
    ).toMatchObject({
      NODE_ENV: 'production',
      CONVENGINE_WORKFLOW_BUNDLE: '/srv/workflow-bundle.js',
      DEVSERVER_API_KEY: 's3cret',
      CONVENGINE_TOOL_DEMO_URL: 'http://tools.internal:8080',
    });
    const blank = loadEnv({
      NODE_ENV: '',
      CONVENGINE_WORKFLOW_BUNDLE: ' ',
      CONVENGINE_TOOL_DEMO_URL: '',
    });
    expect(blank).toEqual(loadEnv({}));
  });

  // Number() took 0xA8A4 (PORT 43172), 1e3 and 0b11 for integers.
  it('takes an integer only as decimal digits, naming the rule', () => {
    for (const text of ['0xA8A4', '1e3', '0b11', '0o17', '3000.0', '.5e4', '+3000', 'Infinity', '3 000']) {
      expect({ text, issues: issuesOf(() => loadEnv({ PORT: text })) }).toEqual({
        text,
        issues: { PORT: 'must be a whole number in decimal digits, e.g. 3000' },
      });
    }
    expect(loadEnv({ PORT: ' 043172 ', WORKER_METRICS_PORT: '9464' })).toMatchObject({
      PORT: 43172,
      WORKER_METRICS_PORT: 9464,
    });
    expect(issuesOf(() => loadEnv({ WORKER_METRICS_PORT: '0x24E8' }))).toEqual({
      WORKER_METRICS_PORT: 'must be a whole number in decimal digits, e.g. 3000',
    });
    // A sign is read, so a negative value gets its bound; digits past 2^53, theirs too: one reason each.
    expect(issuesOf(() => loadEnv({ PORT: '-1', LLM_MAX_TOKENS: '99999999999999999999' }))).toEqual({
      PORT: 'must be >= 0',
      LLM_MAX_TOKENS: `must be <= ${Number.MAX_SAFE_INTEGER}`,
    });
  });

  it('lists every invalid variable in one error, without echoing values', () => {
    let message = '';
    const issues = issuesOf(() => {
      try {
        loadEnv({
          DATABASE_URL: 'mysql://root:hunter2@db/app',
          TEMPORAL_ADDRESS: 'no-port',
          ANTHROPIC_BASE_URL: 'ftp://x',
          LLM_TIMEOUT_MS: '0',
          LLM_MAX_TOKENS: '1.5',
          PORT: '70000',
          MESSAGE_MAX_BYTES: 'big',
          WHATIF_CONCURRENCY: '0',
          WHATIF_MAX_TURNS: '-5',
          CLAIM_CHECK_THRESHOLD_BYTES: '10',
          LOG_LEVEL: 'loud',
          CONVENGINE_TEMPORAL: 'docker',
          LOG_FORMAT: 'xml',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
          WORKER_METRICS_PORT: '-1',
          TEMPORAL_SDK_METRICS_ADDRESS: 'http://x:9',
          TEMPORAL_GRPC_COMPRESSION: 'brotli',
          CONVENGINE_TOOL_DEMO_URL: 'tools.internal:8080',
        });
      } catch (err) {
        message = (err as Error).message;
        throw err;
      }
    });
    expect(Object.keys(issues).sort()).toEqual(
      [
        'ANTHROPIC_BASE_URL',
        'CLAIM_CHECK_THRESHOLD_BYTES',
        'CONVENGINE_TEMPORAL',
        'DATABASE_URL',
        'LLM_MAX_TOKENS',
        'LLM_TIMEOUT_MS',
        'LOG_LEVEL',
        'LOG_FORMAT',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'WORKER_METRICS_PORT',
        'TEMPORAL_SDK_METRICS_ADDRESS',
        'TEMPORAL_GRPC_COMPRESSION',
        'MESSAGE_MAX_BYTES',
        'WHATIF_CONCURRENCY',
        'WHATIF_MAX_TURNS',
        'PORT',
        'TEMPORAL_ADDRESS',
        'CONVENGINE_TOOL_DEMO_URL',
      ].sort()
    );
    expect(issues.PORT).toMatch(/<= 65535/);
    expect(issues.LLM_TIMEOUT_MS).toMatch(/>= 1/);
    expect(issues.LOG_LEVEL).toMatch(/one of fatal, error, warn, info/);
    expect(issues.CONVENGINE_TEMPORAL).toMatch(/one of embedded, cli, auto/);
    expect(issues.LOG_FORMAT).toMatch(/one of json, pretty/);
    expect(issues.TEMPORAL_GRPC_COMPRESSION).toMatch(/one of none, gzip/);
    expect([issues.WHATIF_CONCURRENCY, issues.WHATIF_MAX_TURNS]).toEqual(['must be >= 1', 'must be >= 1']);
    expect(issues.OTEL_EXPORTER_OTLP_ENDPOINT).toMatch(/http:\/\/ or https:\/\//);
    expect(issues.CONVENGINE_TOOL_DEMO_URL).toBe('must be an http:// or https:// URL');
    expect(message).toMatch(/^Invalid environment \(18 variable\(s\)\)/);
    expect(message).not.toContain('hunter2');
  });

  it('bounds LLM_TIMEOUT_MS by the model step: one try of a call must fit in one attempt', () => {
    expect(loadEnv({ LLM_TIMEOUT_MS: '230000' }).LLM_TIMEOUT_MS).toBe(230_000);
    expect(issuesOf(() => loadEnv({ LLM_TIMEOUT_MS: '230001' })).LLM_TIMEOUT_MS).toBe('must be <= 230000');
  });

  // Its top, the longest delay a timer takes, is checked with every other 32-bit bound in test/core/int32.test.ts.
  it('bounds TURN_REPLY_TIMEOUT_MS below: under a second loses to a turn that has answered', () => {
    expect(issuesOf(() => loadEnv({ TURN_REPLY_TIMEOUT_MS: '1' }))).toEqual({
      TURN_REPLY_TIMEOUT_MS: 'must be >= 1000',
    });
  });

  it('bounds OPERATOR_DECISION_TIMEOUT_MS: a decision waits at least a second and at most ten minutes', () => {
    expect(loadEnv({ OPERATOR_DECISION_TIMEOUT_MS: '2500' }).OPERATOR_DECISION_TIMEOUT_MS).toBe(2_500);
    expect(issuesOf(() => loadEnv({ OPERATOR_DECISION_TIMEOUT_MS: '999' }))).toEqual({
      OPERATOR_DECISION_TIMEOUT_MS: 'must be >= 1000',
    });
    expect(issuesOf(() => loadEnv({ OPERATOR_DECISION_TIMEOUT_MS: '600001' }))).toEqual({
      OPERATOR_DECISION_TIMEOUT_MS: 'must be <= 600000',
    });
  });
});

describe('WORKER_SHUTDOWN_GRACE_MS', () => {
  it('sets both ends of a worker stop: the grace, then 10 s more before the worker gives up; 0 to 600000', () => {
    const { WORKER_SHUTDOWN_GRACE_MS } = loadEnv({ WORKER_SHUTDOWN_GRACE_MS: '20000' });
    expect(workerShutdownOptions(WORKER_SHUTDOWN_GRACE_MS)).toEqual({
      shutdownGraceTime: 20_000,
      shutdownForceTime: 30_000,
    });
    expect(issuesOf(() => loadEnv({ WORKER_SHUTDOWN_GRACE_MS: '-1' }))).toEqual({
      WORKER_SHUTDOWN_GRACE_MS: 'must be >= 0',
    });
    expect(issuesOf(() => loadEnv({ WORKER_SHUTDOWN_GRACE_MS: '600001' }))).toEqual({
      WORKER_SHUTDOWN_GRACE_MS: 'must be <= 600000',
    });
  });
});

describe('the database pool sizes', () => {
  const pools = ['API_DB_POOL_MAX', 'WORKER_DB_POOL_MAX', 'WORKER_TOOLS_POOL_MAX'] as const;

  it('take a whole number from 1 to 1000, the defaults (10, 20, 5) when unset or blank', () => {
    expect(loadEnv({ API_DB_POOL_MAX: '40', WORKER_DB_POOL_MAX: '1', WORKER_TOOLS_POOL_MAX: '1000' })).toMatchObject({
      API_DB_POOL_MAX: 40,
      WORKER_DB_POOL_MAX: 1,
      WORKER_TOOLS_POOL_MAX: 1000,
    });
    expect(loadEnv({ API_DB_POOL_MAX: ' ', WORKER_DB_POOL_MAX: '' })).toMatchObject({
      API_DB_POOL_MAX: 10,
      WORKER_DB_POOL_MAX: 20,
      WORKER_TOOLS_POOL_MAX: 5,
    });
  });

  it.each(pools)('refuse a bad %s at start, naming it, in one error with the others', (name) => {
    expect(issuesOf(() => loadEnv({ [name]: '0' }))).toEqual({ [name]: 'must be >= 1' });
    expect(issuesOf(() => loadEnv({ [name]: '1001' }))).toEqual({ [name]: 'must be <= 1000' });
    expect(issuesOf(() => loadEnv({ [name]: '2.5' }))).toEqual({ [name]: INTEGER_RULE });
    expect(issuesOf(() => loadEnv({ [name]: 'ten', PORT: 'x' }))).toEqual({ [name]: INTEGER_RULE, PORT: INTEGER_RULE });
  });
});

describe('API_MAX_CONNECTIONS', () => {
  it('is unset (from the open-files limit) unless given a whole number from 1 to 1000000', () => {
    expect(loadEnv({}).API_MAX_CONNECTIONS).toBeUndefined();
    expect(loadEnv({ API_MAX_CONNECTIONS: '500' }).API_MAX_CONNECTIONS).toBe(500);
    expect(issuesOf(() => loadEnv({ API_MAX_CONNECTIONS: '0' }))).toEqual({ API_MAX_CONNECTIONS: 'must be >= 1' });
    expect(issuesOf(() => loadEnv({ API_MAX_CONNECTIONS: 'many' }))).toEqual({ API_MAX_CONNECTIONS: INTEGER_RULE });
  });
});

describe('DEVSERVER_RETENTION_MS', () => {
  it('takes TEMPORAL_ADDRESS only with a port one can connect to, by the same rule as the PORT variables', () => {
    // Let through before: every Temporal command then waited ~10 s to say it cannot reach Temporal.
    for (const address of ['127.0.0.1:99999', '127.0.0.1:0', 'temporal:65536', 'temporal:0x1C31', '[::1]:123456']) {
      expect({ address, issues: issuesOf(() => loadEnv({ TEMPORAL_ADDRESS: address })) }).toEqual({
        address,
        issues: { TEMPORAL_ADDRESS: 'must be host:port with a port from 1 to 65535, e.g. localhost:7233' },
      });
    }
    for (const address of ['temporal:1', 'temporal:65535', '[::1]:7233', 'localhost:07233']) {
      expect(loadEnv({ TEMPORAL_ADDRESS: address }).TEMPORAL_ADDRESS).toBe(address);
    }
  });

  it('bounds the embedded dev server retention below: a minute, so a turn that just ended can still be read', () => {
    expect(loadEnv({ DEVSERVER_RETENTION_MS: '600000' }).DEVSERVER_RETENTION_MS).toBe(600_000);
    expect(issuesOf(() => loadEnv({ DEVSERVER_RETENTION_MS: '59999' }))).toEqual({
      DEVSERVER_RETENTION_MS: 'must be >= 60000',
    });
  });
});

describe('requireDatabaseUrl', () => {
  it('returns DATABASE_URL once the whole environment is valid, as the worker and the API would need it', () => {
    expect(requireDatabaseUrl({ DATABASE_URL: 'postgres://localhost/x' })).toBe('postgres://localhost/x');
    expect(issuesOf(() => requireDatabaseUrl({ DATABASE_URL: 'postgres://localhost/x', PORT: 'nope' }))).toEqual({
      PORT: 'must be a whole number in decimal digits, e.g. 3000',
    });
  });
  it('says clearly when it is missing or invalid', () => {
    expect(issuesOf(() => requireDatabaseUrl({}))).toEqual({ DATABASE_URL: expect.stringMatching(/is not set/) });
    expect(issuesOf(() => requireDatabaseUrl({ DATABASE_URL: 'localhost' }))).toEqual({
      DATABASE_URL: expect.stringMatching(/postgres:\/\//),
    });
  });
});

describe("loadEnv with a command's needs (convengine api, worker)", () => {
  const worker = ['database', 'temporal', 'llm'] as const;
  it('lists every unset variable the command needs with every invalid one, in one error', () => {
    expect(issuesOf(() => loadEnv({ LOG_LEVEL: 'loud' }, worker))).toEqual({
      LOG_LEVEL: expect.stringMatching(/^must be one of /),
      DATABASE_URL: expect.stringMatching(/^is not set; point it at PostgreSQL/),
      TEMPORAL_ADDRESS: expect.stringMatching(/^is not set; point it at the Temporal frontend/),
      ANTHROPIC_API_KEY: expect.stringMatching(/^is not set, nor ANTHROPIC_BASE_URL: no LLM is configured/),
    });
    expect(Object.keys(issuesOf(() => loadEnv({ ANTHROPIC_API_KEY: 'sk-x' }, ['database', 'temporal'])))).toEqual([
      'DATABASE_URL',
      'TEMPORAL_ADDRESS',
    ]);
  });
  it('names an invalid variable once, for what is wrong with it, and takes ANTHROPIC_BASE_URL for a model', () => {
    const source = { DATABASE_URL: 'localhost', TEMPORAL_ADDRESS: ' ', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    expect(issuesOf(() => loadEnv(source, worker))).toEqual({
      DATABASE_URL: expect.stringMatching(/postgres:\/\//),
      TEMPORAL_ADDRESS: expect.stringMatching(/^is not set/),
    });
    const met = {
      DATABASE_URL: 'postgres://localhost/x',
      TEMPORAL_ADDRESS: 'localhost:7233',
      ANTHROPIC_BASE_URL: 'http://h',
    };
    expect(loadEnv(met, worker)).toMatchObject({ TEMPORAL_ADDRESS: 'localhost:7233' });
  });
});
