/**
 * An API process holds at most API_MAX_CONNECTIONS HTTP connections at once: one more is closed by the server as it
 * is accepted, unanswered, while the connections it holds are answered as before, and once they close new ones are
 * served again. Before, every connection was accepted, and a cold burst past the open-files limit made the accepts
 * fail with EMFILE (clients reset, the process at risk).
 */
import net, { type Socket } from 'node:net';
import { startApiServer, type ApiServer } from '../../api/server';
import { loadEnv } from '../../config/env';
import { localTemporal } from '../../config/temporal-connection';
import { startDevServer, type DevServer } from '../../devserver';
import { createLogger } from '../../observability/logger';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { captureLog } from '../support/log-capture';
import { parseMetrics, sumOf } from '../support/prometheus-text';

jest.setTimeout(90_000);

const MAX = 3;

/** What one GET of `path` on `socket` got: the status line and body, or `closed` when the server ended it unanswered. */
function get(socket: Socket, path = '/healthz'): Promise<{ status: string; body: string } | 'closed'> {
  return new Promise((resolve, reject) => {
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      const length = Number(/^content-length: (\d+)$/im.exec(received)?.[1] ?? NaN);
      if (end < 0 || received.length < end + 4 + length) return;
      socket.removeAllListeners('data');
      resolve({ status: received.slice(0, received.indexOf('\r\n')), body: received.slice(end + 4) });
    });
    // An accepted connection closed at once ends (FIN), or resets when the request had already arrived.
    socket.once('close', () => (received === '' ? resolve('closed') : reject(new Error(`cut: ${received}`))));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`);
  });
}

const OK = expect.objectContaining({ status: 'HTTP/1.1 200 OK' });

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

const closed = (socket: Socket) =>
  new Promise((resolve) => (socket.destroyed ? resolve(null) : socket.once('close', resolve)));

describe('API_MAX_CONNECTIONS', () => {
  let server: DevServer;
  let db: TestDatabase;
  let api: ApiServer;
  let port: number;
  const sockets: Socket[] = [];
  const log = captureLog();
  beforeAll(async () => {
    server = await startDevServer({ port: 0 });
    db = await createTestDatabase();
    const env = loadEnv({ DATABASE_URL: db.url, TEMPORAL_NAMESPACE: server.namespace, API_MAX_CONNECTIONS: `${MAX}` });
    const logger = createLogger({ level: 'warn', format: 'json', name: 'api', destination: log.stream });
    api = await startApiServer({ env, databaseUrl: db.url, temporal: localTemporal(server.address), port: 0, logger });
    port = Number(new URL(api.url).port);
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await api?.close({ drainMs: 0 });
    await server?.stop();
    await db?.drop();
  });

  it('is warned of at start when the message limit from the open-files limit cannot be reached under it', () => {
    // MESSAGE_MAX_CONCURRENT unset: a quarter of the open-files limit, at least 64 where it is unknown; above 3.
    expect(
      log
        .lines()
        .map((l) => String(l['msg']))
        .filter((m) => m.startsWith('this API holds at most'))
    ).toEqual([
      expect.stringMatching(
        /^this API holds at most 3 connections \(API_MAX_CONNECTIONS\), not more than the \d+ messages it answers at once \(MESSAGE_MAX_CONCURRENT unset: from the open-files limit\): .*set MESSAGE_MAX_CONCURRENT below API_MAX_CONNECTIONS/
      ),
    ]);
  });

  it('closes the connections past it unanswered, answers the ones it holds, and serves again once they close', async () => {
    const held = await Promise.all(Array.from({ length: MAX }, () => connect(port)));
    sockets.push(...held);
    expect(await Promise.all(held.map((socket) => get(socket)))).toEqual(Array(MAX).fill(OK));

    const excess = await Promise.all(Array.from({ length: 5 }, () => connect(port)));
    sockets.push(...excess);
    const outcomes = await Promise.all(excess.map((socket) => get(socket)));
    expect(outcomes).toEqual(Array(excess.length).fill('closed'));
    // Said once in the log (not once a connection), and counted.
    expect(log.lines().filter((l) => String(l['msg']).startsWith('closed a connection as it was accepted'))).toEqual([
      expect.objectContaining({ maxConnections: MAX, dropped: 1 }),
    ]);
    const metrics = await get(held[0] as Socket, '/metrics');
    const refused =
      metrics === 'closed'
        ? NaN
        : sumOf(parseMetrics(metrics.body), 'convengine_api_limit_refused_total', { limit: 'connections' });
    expect(refused).toBe(5);

    // The connections it holds are still served, on the same sockets.
    expect(await Promise.all(held.map((socket) => get(socket)))).toEqual(Array(MAX).fill(OK));

    held.forEach((s) => s.end());
    await Promise.all(held.map(closed));
    // The server counts a connection gone once it sees its end: a moment after the client's.
    let after: Awaited<ReturnType<typeof get>> = 'closed';
    for (let tries = 0; tries < 50 && after === 'closed'; tries++) {
      const socket = await connect(port);
      sockets.push(socket);
      after = await get(socket);
      if (after === 'closed') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(after).toEqual(OK);
  });
});
