/**
 * `convengine worker` and `convengine api` at a terminal: a start that cannot happen ends in one line on stderr
 * that says why, besides the fatal JSON log line (with its stack) for the log collector.
 */
import { createServer, type AddressInfo } from 'node:net';
import { DATABASE_URL_UNSET, LOG_LEVELS } from '../../config/env';
import { freePort } from '../../cli/temporal/server';
import { NAMESPACE_MISSING, namespaceMissing } from '../../observability/prerequisite-problems';
import { WAITING_FOR_NAMESPACE } from '../../worker/namespace-wait';
import { ConvengineProcess } from '../support/child-processes';
import { workerEnvironment } from '../support/worker-environment';
import { runConvengine } from '../support/run-cli';

/** A loopback port nothing listens on. */
const NOBODY = '127.0.0.1:1';
const DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const NO_DATABASE_URL = `Invalid environment (1 variable(s)):\n  DATABASE_URL: ${DATABASE_URL_UNSET}\n`;

describe('convengine worker', () => {
  it('lists every variable it lacks or refuses in one error (database, Temporal, model, LOG_LEVEL), and exits 2', async () => {
    const variables = { TEMPORAL_ADDRESS: '', DATABASE_URL: '', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' };
    const run = await runConvengine(['worker'], { ...variables, LOG_LEVEL: 'loud' }, 30_000);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'Invalid environment (4 variable(s)):\n' +
        `  LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}\n` +
        `  DATABASE_URL: ${DATABASE_URL_UNSET}\n` +
        '  TEMPORAL_ADDRESS: is not set; point it at the Temporal frontend, e.g. localhost:7233 (`convengine start` runs one itself)\n' +
        '  ANTHROPIC_API_KEY: is not set, nor ANTHROPIC_BASE_URL: no LLM is configured; set ANTHROPIC_API_KEY (Anthropic) or ANTHROPIC_BASE_URL (a Messages API server); `convengine start` alone runs the keyless demo model\n',
    });
  });

  it('names the Temporal it cannot reach and the reason, in one line, and exits 1', async () => {
    const run = await runConvengine(
      ['worker'],
      { TEMPORAL_ADDRESS: NOBODY, DATABASE_URL, ANTHROPIC_API_KEY: 'sk-test', LOG_FORMAT: 'json' },
      30_000
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `worker failed to start: cannot reach Temporal at ${NOBODY} (plaintext): Connection refused\n`
    );
    const fatal = run.stdout.split('\n').find((line) => line.includes('"level":"fatal"'));
    expect(JSON.parse(fatal ?? '{}')).toMatchObject({
      msg: 'worker failed to start',
      err: { stack: expect.any(String) },
    });
  });

  // A taken WORKER_METRICS_PORT was found only after the worker had connected to Temporal and the database.
  it.each([
    {
      variable: 'TEMPORAL_SDK_METRICS_ADDRESS',
      value: (port: number) => `127.0.0.1:${port}`,
      type: 'SdkMetricsAddressError',
      listener: "the Temporal SDK's metrics exporter",
      why: /: Address already in use/,
    },
    {
      variable: 'WORKER_METRICS_PORT',
      value: (port: number) => String(port),
      type: 'WorkerMetricsPortError',
      listener: "the worker's /metrics, /healthz and /readyz (HOST 127.0.0.1)",
      why: /: address already in use$/,
    },
  ])('names $variable when it is taken, before connecting or polling, in one line, and exits 1', async (taken) => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const value = taken.value((holder.address() as AddressInfo).port);
    try {
      const variables = {
        TEMPORAL_ADDRESS: NOBODY,
        DATABASE_URL,
        ANTHROPIC_API_KEY: 'sk-test',
        [taken.variable]: value,
        LOG_FORMAT: 'json',
      };
      const run = await runConvengine(['worker'], variables, 30_000);
      const reason = `${taken.variable}=${value}: ${taken.listener} cannot listen there`;
      expect(run.code).toBe(1);
      // One line: the fix (the variable, its value), then the reason.
      expect(run.stderr.split('\n')).toEqual([expect.stringMatching(taken.why), '']);
      expect(run.stderr).toContain(`worker failed to start: ${reason}: `);
      // The JSON fatal line, and no other: nothing connected or polled first.
      const lines = run.stdout.trim().split('\n');
      expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
        expect.objectContaining({
          level: 'fatal',
          msg: 'worker failed to start',
          err: expect.objectContaining({ type: taken.type, message: expect.stringContaining(reason) }),
        }),
      ]);
    } finally {
      holder.close();
    }
  });
});

describe('convengine worker on a namespace that does not exist', () => {
  const environment = workerEnvironment();
  const variables = () => ({ ...environment(), TEMPORAL_NAMESPACE: 'nope' });

  it('waits for it: logs the fix, serves /readyz not ready, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const worker = await ConvengineProcess.start(['worker'], {
      name: 'worker waiting for its namespace',
      env: { ...variables(), WORKER_METRICS_PORT: String(port) },
      ready: /waiting for it \(not ready until then\)/,
      readyTimeoutMs: 120_000,
    });
    try {
      const waiting = JSON.parse(
        worker
          .tail()
          .split('\n')
          .find((l) => l.includes('waiting for it')) ?? '{}'
      );
      expect(waiting).toMatchObject({ level: 'error', namespace: 'nope' });
      expect(waiting.msg).toBe(`${namespaceMissing('nope')}; waiting for it (not ready until then)`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect({ status: ready.status, body: await ready.json() }).toMatchObject({
        status: 503,
        body: { checks: { temporal: NAMESPACE_MISSING, worker: WAITING_FOR_NAMESPACE } },
      });
      const asked = Date.now();
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(Date.now() - asked).toBeLessThan(10_000);
      expect(worker.tail()).toContain('stopped while waiting for namespace nope to exist');
    } finally {
      await worker.kill('SIGKILL');
    }
  }, 150_000);

  it('with --fail-without-namespace: names the namespace and `convengine setup-temporal`, and exits 1', async () => {
    const run = await runConvengine(
      ['worker', '--fail-without-namespace'],
      { ...variables(), WORKER_METRICS_PORT: '0' },
      120_000
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 1,
      stderr: `worker failed to start: ${namespaceMissing('nope')}\n`,
    });
    // The fatal log line names the fix too, not the server's raw status (`Status { code: NotFound, … details: b"…`).
    const fatal = run.stdout.split('\n').find((line) => line.includes('"level":"fatal"'));
    expect(JSON.parse(fatal ?? '{}')).toMatchObject({
      msg: 'worker failed to start',
      namespace: 'nope',
      reason: namespaceMissing('nope'),
    });
    expect(run.stdout).not.toMatch(/Status \{|details: b"/);
  }, 150_000);
});

describe.each(['worker', 'api'])('convengine %s without DATABASE_URL', (command) => {
  it('says so, in one message, and exits 2 before connecting anywhere', async () => {
    const variables = { TEMPORAL_ADDRESS: NOBODY, DATABASE_URL: '', ANTHROPIC_API_KEY: 'sk-test' };
    const run = await runConvengine([command], variables, 30_000);
    expect(run).toEqual({ code: 2, stdout: '', stderr: NO_DATABASE_URL });
  });
});

describe('convengine api', () => {
  it('lists DATABASE_URL and TEMPORAL_ADDRESS in one error when both are unset, needing no model, and exits 2', async () => {
    const variables = { TEMPORAL_ADDRESS: '', DATABASE_URL: '', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' };
    const run = await runConvengine(['api'], variables, 30_000);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(
      run.stderr
        .split('\n')
        .filter((line) => line.startsWith('  '))
        .map((line) => line.split(':')[0])
    ).toEqual(['  DATABASE_URL', '  TEMPORAL_ADDRESS']);
  });

  it('names the Temporal it cannot reach and the reason, in one line, and exits 1', async () => {
    const variables = { TEMPORAL_ADDRESS: NOBODY, DATABASE_URL, PORT: '0', LOG_FORMAT: 'json' };
    const run = await runConvengine(['api'], variables, 40_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `API failed to start: cannot reach Temporal at ${NOBODY} (plaintext): Failed to connect before the deadline\n`
    );
  }, 45_000);
});
