/**
 * The composition roots bind a database to one Temporal deployment (namespace and task queue, db/deployment.ts): in
 * a sweep a `convengine worker` with team A's DATABASE_URL on team B's TEMPORAL_TASK_QUEUE ran B's turns with A's
 * config and wrote them into A's database, and an API with another namespace answered turns from a database that was
 * not its own. The first `worker` binds the database; a `worker`, `api` or `start` of another deployment exits 1 in
 * one line naming both and the rebind, before it reaches Temporal; `migrate --bind-deployment` rebinds on purpose.
 */
import { rmSync } from 'node:fs';
import { databaseAddress } from '../../db/address';
import { readDeploymentBinding } from '../../db/deployment';
import { ConvengineProcess } from '../support/child-processes';
import { EMBEDDED_ENV, newHome } from '../support/embedded-stack';
import { runConvengine } from '../support/run-cli';
import { openDatabase } from '../../db/pool';
import { workerEnvironment } from '../support/worker-environment';

jest.setTimeout(180_000);

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A loopback port nothing listens on: a process that got past the binding fails on it instead. */
const NOWHERE = '127.0.0.1:1';

describe('a database bound to its deployment, at the CLI entry points', () => {
  const environment = workerEnvironment();
  const teamA = () => ({ ...environment(), TEMPORAL_TASK_QUEUE: 'team-a-turns', WORKER_METRICS_PORT: '0' });
  const teamB = () => ({ ...teamA(), TEMPORAL_TASK_QUEUE: 'team-b-turns', TEMPORAL_ADDRESS: NOWHERE });
  const address = () => databaseAddress(environment()['DATABASE_URL']);
  const binding = async () => {
    const handle = openDatabase(environment()['DATABASE_URL']!, { max: 1 });
    try {
      return await readDeploymentBinding(handle.pool);
    } finally {
      await handle.close();
    }
  };
  const refusal = () =>
    `the database at ${address()} belongs to another deployment: it is bound to Temporal namespace "default", ` +
    `task queue "team-a-turns" (since `;

  it('the first worker binds the database and logs it, without its password, with its namespace and queue', async () => {
    const worker = await ConvengineProcess.start(['worker'], {
      name: 'first worker',
      env: teamA(),
      ready: /"msg":"worker polling/,
      readyTimeoutMs: 120_000,
    });
    try {
      const line = worker
        .tail(20_000)
        .split('\n')
        .find((l) => l.includes('"msg":"worker polling'));
      expect(JSON.parse(line ?? '{}')).toMatchObject({
        taskQueue: 'team-a-turns',
        namespace: 'default',
        database: address(),
        msg: expect.stringContaining(`(namespace default), database ${address()}`),
      });
      expect(worker.tail(20_000)).not.toContain('postgres@');
    } finally {
      await worker.stop(30_000);
    }
    expect(await binding()).toMatchObject({ namespace: 'default', taskQueue: 'team-a-turns' });
  });

  it("a worker on another deployment's queue exits 1 in one line, before it reaches Temporal", async () => {
    const run = await runConvengine(['worker'], teamB(), 60_000);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toEqual([expect.any(String), '']);
    expect(run.stderr).toContain(`worker failed to start: ${refusal()}`);
    expect(run.stderr).toContain('this process has namespace "default", task queue "team-b-turns"');
    expect(run.stderr).toContain('`convengine migrate --bind-deployment`');
    expect(run.stderr).not.toContain('cannot reach Temporal');
  });

  it('an API of another namespace exits 1 in one line, before it reaches Temporal', async () => {
    const run = await runConvengine(['api'], { ...teamA(), TEMPORAL_NAMESPACE: 'staging', PORT: '0' }, 60_000);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`API failed to start: ${refusal()}`);
    expect(run.stderr).toContain('this process has namespace "staging", task queue "team-a-turns"');
    expect(run.stderr.split('\n')).toHaveLength(2);
  });

  it('start of another deployment exits 1 in one line, before it seeds anything', async () => {
    const home = newHome();
    try {
      const env = { ...EMBEDDED_ENV, ...teamA(), TEMPORAL_TASK_QUEUE: 'team-c-turns', LOG_LEVEL: 'warn' };
      const run = await runConvengine(['start', '--port', '0', '--home', home], env, 120_000);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^ConvEngine failed to start: ${escape(refusal())}[^\\n]*\\n$`));
      expect(run.stderr).toContain('task queue "team-c-turns"');
      expect(run.stdout).not.toContain('ConvEngine ready');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    const handle = openDatabase(environment()['DATABASE_URL']!, { max: 1 });
    try {
      const { rows } = await handle.pool.query('SELECT count(*)::int AS n FROM ce_intent');
      expect(rows).toEqual([{ n: 0 }]);
    } finally {
      await handle.close();
    }
  });

  it('migrate --bind-deployment moves it on purpose, naming the old binding; that worker then gets past it', async () => {
    const run = await runConvengine(['migrate', '--bind-deployment'], teamB(), 60_000);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(
      `database ${address()} bound to Temporal namespace "default", task queue "team-b-turns" ` +
        '(it was bound to namespace "default", task queue "team-a-turns")\n'
    );
    expect(await binding()).toMatchObject({ taskQueue: 'team-b-turns' });
    const worker = await runConvengine(['worker'], teamB(), 60_000);
    expect(worker.code).toBe(1);
    expect(worker.stderr).toBe(
      `worker failed to start: cannot reach Temporal at ${NOWHERE} (plaintext): Connection refused\n`
    );
  });
});
