/**
 * A database that accepts TCP and never answers (a hung server, a proxy with nothing behind it) costs a command one
 * connect timeout, not one per try: pg-pool's "Connection terminated due to connection timeout" was taken for a lost
 * connection, so each idempotent read was sent again on a fresh connection (three timeouts), and the not-migrated
 * check after the failure opened a fourth.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { readConfigState } from '../../db/config/load';
import { openDatabase } from '../../db/pool';
import { notMigratedReason } from '../../cli/not-migrated';
import { runConvengine } from '../support/run-cli';

/** db/pool.ts's connect timeout, which the CLI commands keep. */
const POOL_CONNECT_TIMEOUT_MS = 10_000;
const SHORT_TIMEOUT_MS = 400;

jest.setTimeout(60_000);

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
    const started = Date.now();
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
    expect(Date.now() - started).toBeLessThan(SHORT_TIMEOUT_MS * 1.5);
    expect(connectedAt).toHaveLength(1);
  });

  it('`convengine validate-config` exits 1 with the reason after about one connect timeout', async () => {
    const run = await runConvengine(['validate-config'], { DATABASE_URL: url }, POOL_CONNECT_TIMEOUT_MS * 5);
    // From its first connection: process start and the SQL parser's load come before it, on a loaded machine seconds.
    const elapsed = Date.now() - (connectedAt[0] ?? Number.NaN);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^validate-config failed: .*connection timeout/);
    expect(connectedAt).toHaveLength(1);
    expect(elapsed).toBeLessThan(POOL_CONNECT_TIMEOUT_MS * 1.5);
  });
});
