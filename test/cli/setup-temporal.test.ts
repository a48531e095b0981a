/**
 * `convengine setup-temporal` against our own dev server (which now answers the gRPC health check),
 * and how it waits: while the cluster is not up yet it retries; a refusal that waiting cannot change
 * (here UNAUTHENTICATED) fails at once, with the reason.
 */
import { Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../devserver';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

describe('convengine setup-temporal', () => {
  let server: DevServer;
  let keyed: DevServer;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    keyed = await startDevServer({ port: 0, apiKey: 'ck-test-setup' });
  });
  afterAll(async () => {
    await server?.stop();
    await keyed?.stop();
  });

  it('sets up the namespace on `convengine devserver`', async () => {
    const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: server.namespace };
    const run = await runConvengine(['setup-temporal', '--retention-days', '2'], env, 60_000);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`namespace default ready on ${server.address} (plaintext)`);
    const connection = await Connection.connect({ address: server.address });
    try {
      const listed = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      expect(Object.keys(listed.customAttributes ?? {})).toContain('ConversationId');
    } finally {
      await connection.close();
    }
  });

  it('fails at once, with the reason, when the server refuses the call', async () => {
    const started = Date.now();
    const run = await runConvengine(['setup-temporal'], { TEMPORAL_ADDRESS: keyed.address }, 60_000);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('waiting for Temporal');
    expect(run.stderr.trim()).toBe(
      `setup-temporal: cannot reach Temporal at ${keyed.address} (plaintext): Failed to connect to Temporal server: ` +
        '16 UNAUTHENTICATED: Request unauthorized.'
    );
  });

  it('says, with its prefix, that the dev server cannot create another namespace', async () => {
    const env = { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'sweepb' };
    const run = await runConvengine(['setup-temporal'], env, 60_000);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      `setup-temporal: ${server.address} (plaintext): namespace sweepb does not exist and the server did not ` +
        'create it: 12 UNIMPLEMENTED: The ConvEngine dev server serves a single namespace, default, and cannot ' +
        'create another (start it with --namespace to serve a different one).'
    );
  });

  it('keeps waiting while nothing answers at the address', async () => {
    // Killed after its first retry: it would wait two minutes for a server to come up.
    const run = await runConvengine(['setup-temporal'], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 12_000);
    expect(run.stderr).toContain('waiting for Temporal at 127.0.0.1:1 (plaintext)…');
  });

  it.each([
    [['--bogus'], 'setup-temporal: unexpected argument(s): --bogus'],
    [['--retention-days'], '--retention-days needs a value'],
    // Number() took these: 1e300 connected, then failed exit 1 on `Invalid duration string: '1e+300 days'`.
    [['--retention-days', '1e300'], '--retention-days expects a whole number from 1 to 3652500 (got "1e300")'],
    [['--retention-days', '1e9'], '--retention-days expects a whole number from 1 to 3652500 (got "1e9")'],
    [['--retention-days', '0x10'], '--retention-days expects a whole number from 1 to 3652500 (got "0x10")'],
    [['--retention-days', '3652501'], '--retention-days expects a whole number from 1 to 3652500 (got "3652501")'],
    [['--retention-days', '0'], '--retention-days expects a whole number from 1 to 3652500 (got "0")'],
    [['--wait-seconds', '-1'], '--wait-seconds expects a whole number from 0 to 3600 (got "-1")'],
  ])('setup-temporal %j exits 2 with "%s" and the synopsis', async (args, message) => {
    const run = await runConvengine(['setup-temporal', ...args], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 30_000);
    expect(run.code).toBe(2);
    const [first, second] = run.stderr.split('\n');
    expect(first).toBe(message);
    expect(second).toMatch(/^Usage: convengine setup-temporal /);
  });

  it('with --wait-seconds 0 tries once and exits 1 when nothing answers, as its --help says', async () => {
    const help = await runConvengine(['setup-temporal', '--help'], {}, 30_000);
    expect(help.stdout).toContain('retries every few seconds for --wait-seconds (default 120');
    const started = Date.now();
    const run = await runConvengine(['setup-temporal', '--wait-seconds', '0'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('waiting for Temporal');
    expect(run.stderr).toMatch(/^setup-temporal: cannot reach Temporal at 127\.0\.0\.1:1 /);
  });
});
