/**
 * A database that accepts TCP and never answers (a hung server, a proxy with nothing behind it) costs a command one
 * connect timeout, not one per try: pg-pool's "Connection terminated due to connection timeout" was taken for a lost
 * connection, so each idempotent read was sent again on a fresh connection (three timeouts), and the not-migrated
 * check after the failure opened a fourth.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal as proto } from '@temporalio/proto';
import { CLAIM_ENCODING } from '../../db/claims/codec';
import { readConfigState } from '../../db/config/load';
import { openDatabase } from '../../db/pool';
import { notMigratedReason } from '../../cli/not-migrated';
import { runConvengine } from '../support/run-cli';
import { getTestTemporal, type TestTemporal } from '../support/temporal';
import { COMPLETE_WORKFLOW, FakeWorker, jsonPayloads } from '../devserver/fake-worker';

/** db/pool.ts's connect timeout, which the CLI commands keep; doctor's own is shorter. */
const POOL_CONNECT_TIMEOUT_MS = 10_000;
const DOCTOR_CONNECT_TIMEOUT_MS = 5_000;
// How long a CLI process may live: its start (tsx compiling the sources, eight side by side on a loaded machine) is
// not the product's to bound; each test bounds the product's own wait from the first connection instead.
const PROCESS_LIMIT_MS = 100_000;
const SHORT_TIMEOUT_MS = 400;

// Eight CLI processes side by side on a loaded two-core machine take their time to load.
jest.setTimeout(120_000);

/** What every database command says of a silent database: where (no credentials), how long, what to check. */
function silentDatabaseReason(url: string, timeoutMs: number): string {
  const { host } = new URL(url);
  return (
    `the database at ${host}/silent did not answer a connection within ${timeoutMs / 1000}s: check that PostgreSQL ` +
    'runs at that address and answers (not a proxy, tunnel or firewall that accepts connections and holds them), ' +
    'and that DATABASE_URL names it'
  );
}

/** A TCP listener that accepts and never answers, with when each connection came. */
async function silentDatabase(): Promise<{ url: string; connectedAt: number[]; close(): Promise<void> }> {
  const connectedAt: number[] = [];
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    connectedAt.push(Date.now());
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    url: `postgres://convengine:secret@127.0.0.1:${address.port}/silent`,
    connectedAt,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a database that accepts connections and never answers', () => {
  let server: Server;
  let url: string;
  const connectedAt: number[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    server = createServer((socket) => {
      connectedAt.push(Date.now());
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    url = `postgres://convengine@127.0.0.1:${address.port}/silent`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    connectedAt.length = 0;
  });

  it('fails a config read after one connect timeout, and the not-migrated check does not connect again', async () => {
    const handle = openDatabase(url, { max: 1, connectionTimeoutMillis: SHORT_TIMEOUT_MS });
    try {
      const failure = await readConfigState(handle.db).then(
        () => null,
        (err: unknown) => err
      );
      expect(failure).not.toBeNull();
      expect(await notMigratedReason(handle.pool, failure)).toBeNull();
    } finally {
      await handle.close();
    }
    // One connect timeout, not two: the server records every connection, so a second wait would be a second entry.
    // (A wall-clock bound here failed on a loaded machine: the one timeout took 872 ms of a 400 ms setting.)
    expect(connectedAt).toHaveLength(1);
  });

  it('`convengine validate-config` exits 1 with the reason after about one connect timeout', async () => {
    const run = await runConvengine(['validate-config'], { DATABASE_URL: url }, PROCESS_LIMIT_MS);
    // From its first connection: process start and the SQL parser's load come before it, on a loaded machine seconds.
    const elapsed = Date.now() - (connectedAt[0] ?? Number.NaN);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`validate-config failed: ${silentDatabaseReason(url, POOL_CONNECT_TIMEOUT_MS)}\n`);
    expect(connectedAt).toHaveLength(1);
    expect(elapsed).toBeLessThan(POOL_CONNECT_TIMEOUT_MS * 1.5);
  });
});

/**
 * Every other command that reads or writes the database, each against a silent database of its own (run side by
 * side: each costs a connect timeout): one product message in the command's failure line, exit soon after.
 */
describe('the database commands against a silent database', () => {
  const work = mkdtempSync(join(tmpdir(), 'ce-silent-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));
  // A closed port: doctor's Temporal check fails at once instead of waiting on a listener.
  const temporal = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
  const commands: { args: string[]; code: number; line: (reason: string) => string; timeoutMs?: number }[] = [
    { args: ['migrate'], code: 1, line: (reason) => `migrate failed: ${reason}` },
    { args: ['seed', 'faq'], code: 1, line: (reason) => `seed failed: ${reason}` },
    { args: ['config', 'export', join(work, 'tree')], code: 1, line: (reason) => `config failed: ${reason}` },
    { args: ['config', 'apply', 'examples/claims/config'], code: 1, line: (reason) => `config failed: ${reason}` },
    { args: ['whatif', '--config', 'current', '--since', '1d'], code: 3, line: (reason) => `whatif failed: ${reason}` },
    { args: ['claims', 'prune', '--older-than', '30d'], code: 1, line: (reason) => `claims prune failed: ${reason}` },
    {
      args: ['conversations', 'prune', '--older-than', '30d'],
      code: 1,
      line: (reason) => `conversations prune failed: ${reason}`,
    },
    {
      args: ['doctor'],
      code: 1,
      line: (reason) => `fail database          cannot read the schema: ${reason}`,
      timeoutMs: DOCTOR_CONNECT_TIMEOUT_MS,
    },
  ];

  it('each exits about one connect timeout after its first connection, saying what timed out where', async () => {
    const runs = await Promise.all(
      commands.map(async (command) => {
        const database = await silentDatabase();
        try {
          const env = { DATABASE_URL: database.url, ...temporal };
          const run = await runConvengine(command.args, env, PROCESS_LIMIT_MS);
          return { command, run, database, elapsed: Date.now() - (database.connectedAt[0] ?? Number.NaN) };
        } finally {
          await database.close();
        }
      })
    );
    for (const { command, run, database, elapsed } of runs) {
      const timeoutMs = command.timeoutMs ?? POOL_CONNECT_TIMEOUT_MS;
      const output = `${run.stdout}${run.stderr}`.split('\n');
      expect({ args: command.args, code: run.code }).toEqual({ args: command.args, code: command.code });
      expect(output).toContain(command.line(silentDatabaseReason(database.url, timeoutMs)));
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/secret|Connection terminated/);
      expect({ args: command.args, connections: database.connectedAt.length }).toEqual({
        args: command.args,
        connections: 1,
      });
      expect({ args: command.args, prompt: elapsed < timeoutMs * 1.5 }).toEqual({ args: command.args, prompt: true });
    }
  });
});

/**
 * A closed turn whose step run result is claim-checked (a LocalSteps marker holding a claim reference), the only
 * history `convengine history` reads the database for.
 */
async function claimCheckedTurn(server: TestTemporal): Promise<{ workflowId: string; taskQueue: string }> {
  const worker = new FakeWorker(server);
  try {
    const workflowId = await worker.start('turn-claim-checked');
    const reference = { sha256: 'a'.repeat(64), sizeBytes: 4096 };
    await worker.complete(await worker.poll(), [
      {
        commandType: proto.api.enums.v1.CommandType.COMMAND_TYPE_RECORD_MARKER,
        recordMarkerCommandAttributes: {
          markerName: 'core_local_activity',
          details: {
            data: jsonPayloads({ seq: 1, activity_id: '1', activity_type: 'LocalSteps' }),
            result: {
              payloads: [
                { metadata: { encoding: Buffer.from(CLAIM_ENCODING) }, data: Buffer.from(JSON.stringify(reference)) },
              ],
            },
          },
        },
      },
      COMPLETE_WORKFLOW,
    ]);
    return { workflowId, taskQueue: worker.taskQueue };
  } finally {
    worker.close();
  }
}

describe('`convengine history` of a turn with a claim-checked step run, against a silent database', () => {
  let server: TestTemporal;
  let workflowId: string;
  let taskQueue: string;
  beforeAll(async () => {
    server = await getTestTemporal();
    ({ workflowId, taskQueue } = await claimCheckedTurn(server));
  });
  afterAll(async () => server.stop());

  it('prints the timeline, then exits 1 about one connect timeout later, saying what timed out where', async () => {
    const database = await silentDatabase();
    try {
      const args = ['history', workflowId, '--address', server.address, '--namespace', server.namespace];
      args.push('--task-queue', taskQueue);
      const run = await runConvengine(args, { DATABASE_URL: database.url }, PROCESS_LIMIT_MS);
      const elapsed = Date.now() - (database.connectedAt[0] ?? Number.NaN);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/ LocalSteps \(local\) {2}→ COMPLETED\n/);
      expect(run.stderr).toBe(
        `cannot read the claim-checked step runs of ${workflowId} (step runs with claim-checked results show as one ` +
          `line each): ${silentDatabaseReason(database.url, POOL_CONNECT_TIMEOUT_MS)}\n`
      );
      expect(database.connectedAt).toHaveLength(1);
      expect(elapsed).toBeLessThan(POOL_CONNECT_TIMEOUT_MS * 1.5);
    } finally {
      await database.close();
    }
  });
});
