import net, { type AddressInfo } from 'node:net';

/**
 * A loopback proxy in front of PostgreSQL that gives its clients cancel keys of its own, as PgBouncer does: the
 * BackendKeyData a client reads names a process id that is not the server's (so pg_cancel_backend on it cancels
 * nothing), and a CancelRequest for that id is sent on to the server with the server's key. Plain TCP only (no SSL).
 */
export interface KeyMappingPooler {
  url: string;
  /** The process ids its clients were given, and the server's behind each. */
  given: Map<number, number>;
  stop(): Promise<void>;
}

const CANCEL_REQUEST_CODE = 80_877_102;
const FAKE_PID_OFFSET = 1_000_000;

/** Rewrites the server's BackendKeyData ('K') message in the stream to the client; forwards the rest as it is. */
function keyRewriter(onKey: (serverPid: number) => number): (chunk: Buffer) => Buffer {
  let pending = Buffer.alloc(0);
  let startupDone = false;
  return (chunk) => {
    if (startupDone) return chunk;
    pending = Buffer.concat([pending, chunk]);
    const out: Buffer[] = [];
    while (pending.length >= 5) {
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) break;
      const message = Buffer.from(pending.subarray(0, 1 + length));
      pending = pending.subarray(1 + length);
      if (message[0] === 0x4b) message.writeInt32BE(onKey(message.readInt32BE(5)), 5);
      // ReadyForQuery ends the startup: nothing after it carries a key.
      if (message[0] === 0x5a) startupDone = true;
      out.push(message);
    }
    if (startupDone) out.push(pending);
    return Buffer.concat(out);
  };
}

export async function startKeyMappingPooler(serverUrl: string): Promise<KeyMappingPooler> {
  const server = new URL(serverUrl);
  const target = { host: server.hostname, port: Number(server.port || 5432) };
  const given = new Map<number, number>();
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    sockets.add(client);
    client.on('error', () => undefined);
    client.once('data', (first) => {
      const upstream = net.connect(target.port, target.host);
      sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      if (first.length === 16 && first.readInt32BE(4) === CANCEL_REQUEST_CODE) {
        const real = Buffer.from(first);
        real.writeInt32BE(given.get(first.readInt32BE(8)) ?? 0, 8);
        upstream.once('connect', () => upstream.end(real));
        upstream.once('close', () => client.destroy());
        return;
      }
      const rewrite = keyRewriter((serverPid) => {
        given.set(serverPid + FAKE_PID_OFFSET, serverPid);
        return serverPid + FAKE_PID_OFFSET;
      });
      upstream.write(first);
      upstream.on('data', (chunk: Buffer) => client.write(rewrite(chunk)));
      client.on('data', (chunk: Buffer) => upstream.write(chunk));
      upstream.on('close', () => client.destroy());
      client.on('close', () => upstream.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    given,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
