/**
 * `convengine doctor` against our dev server and PostgreSQL: every check says ok, a namespace
 * without the turn search attributes fails with the fix, and an unmigrated database fails.
 * (The slow-server warning is proven on the real server at its defaults: test/temporal/doctor.test.ts.)
 */
import { Connection } from '@temporalio/client';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { seedPacks } from '../../db/seed';
import { startDevServer, type DevServer } from '../../devserver';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { ConvengineProcess } from '../support/child-processes';
import { addressRefusals } from '../support/address-refusals';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(120_000);

function findings(stdout: string): Array<{ check: string; level: string; message: string; msPerActivity?: number }> {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { check: string; level: string; message: string; msPerActivity?: number });
}

describe('convengine doctor', () => {
  let server: DevServer;
  let tdb: TestDatabase;
  let bare: TestDatabase;
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    tdb = await createTestDatabase();
    // A config to validate: an empty one is a failed config check (the compose deployment that never seeded).
    await seedPacks(tdb.db, ['faq']);
    bare = await createTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await server?.stop();
    await tdb?.drop();
    await bare?.drop();
  });

  it('fails while the turn search attributes are missing, naming the command that registers them', async () => {
    const run = await runConvengine(['doctor', '--address', server.address, '--namespace', server.namespace], {
      DATABASE_URL: '',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^fail search-attributes +missing ConversationId, .*convengine setup-temporal/m);
    expect(run.stdout).toMatch(/^(ok {2}|warn) round-trip +\d+\.\d ms per activity round trip/m);
    const connection = await Connection.connect({ address: server.address });
    try {
      await setupTemporalNamespace(connection, { namespace: server.namespace, retentionDays: 1 });
    } finally {
      await connection.close();
    }
  });

  it('reports the namespace, the search attributes, a timed round trip and the migrations', async () => {
    const run = await runConvengine(
      ['doctor', '--address', server.address, '--namespace', server.namespace, '--json'],
      {
        DATABASE_URL: tdb.url,
      }
    );
    expect(run.stderr).toBe('');
    // The round trip may warn on a loaded machine; a warning never fails the run without --strict.
    expect(run.stdout).not.toMatch(/"level":"fail"/);
    expect(run.code).toBe(0);
    const byCheck = new Map(findings(run.stdout).map((f) => [f.check, f]));
    expect([...byCheck.keys()]).toEqual([
      'temporal',
      'search-attributes',
      'turn-patches',
      'round-trip',
      'database',
      'pooling',
      'search-collation',
      'search-indexes',
      'deployment',
      'config',
      'audit-trail',
    ]);
    expect(byCheck.get('pooling')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('config')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('temporal')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('search-attributes')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('turn-patches')).toMatchObject({
      level: 'ok',
      message: expect.stringMatching(/patches \(identity patches=\d+\), oldest first: local-first-steps, .*: none$/),
    });
    expect(byCheck.get('round-trip')?.msPerActivity).toBeGreaterThan(0);
    expect(byCheck.get('round-trip')?.message).toMatch(/ms per activity round trip/);
    expect(byCheck.get('database')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('search-collation')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('search-indexes')).toMatchObject({ level: 'ok' });
    // doctor binds nothing: the first worker, API or start does.
    expect(byCheck.get('deployment')).toMatchObject({
      level: 'ok',
      message: expect.stringMatching(/^not bound to a deployment yet: /),
    });
    expect(byCheck.get('audit-trail')).toMatchObject({ level: 'ok' });
    expect(byCheck.get('audit-trail')?.message).toMatch(
      /^ce_audit \d+\.\d MiB, ~0 rows; no conversation; audit policy LEVEL=ALL\./
    );
  });

  it('fails on an unmigrated database and names the command that fixes it', async () => {
    const run = await runConvengine(['doctor', '--address', server.address, '--namespace', server.namespace], {
      DATABASE_URL: bare.url,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^fail database +no migration applied: run `convengine migrate`$/m);
  });

  it('fails on a namespace that does not exist, without a probe', async () => {
    const run = await runConvengine(['doctor', '--address', server.address, '--namespace', 'no-such-ns', '--json'], {
      DATABASE_URL: '',
    });
    expect(run.code).toBe(1);
    const all = findings(run.stdout);
    expect(all.map((f) => f.check)).toEqual(['temporal']);
    expect(all[0]?.message).toContain('no-such-ns');
  });

  it.each([
    [['--address'], '--address needs a value'],
    [['--namespace', '--json'], '--namespace needs a value'],
    [['--strict=yes'], '--strict takes no value'],
    [['--address', 'host'], '--address must be host:port with a port from 1 to 65535, e.g. localhost:7233, not "host"'],
    ...addressRefusals(),
  ])('doctor %j is a usage error: %s', async (args, message) => {
    const run = await runConvengine(['doctor', ...args], { TEMPORAL_ADDRESS: server.address, DATABASE_URL: '' });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('worker --check times the round trip before it starts polling', async () => {
    const worker = await ConvengineProcess.start(['worker', '--check'], {
      name: 'worker --check',
      ready: /worker polling/,
      readyTimeoutMs: 90_000,
      env: {
        DATABASE_URL: tdb.url,
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: server.namespace,
        TEMPORAL_TASK_QUEUE: `doctor-check-${process.pid}`,
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
        LOG_LEVEL: 'info',
      },
    });
    try {
      const output = worker.tail(20_000);
      const probe = output.search(/round-trip check (ok|warn): \d+\.\d ms per activity round trip/);
      expect(probe).toBeGreaterThanOrEqual(0);
      expect(probe).toBeLessThan(output.indexOf('worker polling'));
    } finally {
      await worker.stop();
    }
  });

  it('refuses to guess a server', async () => {
    const run = await runConvengine(['doctor'], { TEMPORAL_ADDRESS: '', DATABASE_URL: '' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TEMPORAL_ADDRESS');
  });
});
