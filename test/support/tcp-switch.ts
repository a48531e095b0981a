import net, { type AddressInfo } from 'node:net';

/**
 * How a TcpSwitch treats connections: `pass` forwards them; `down` closes every open one and each new one as it
 * arrives (a server that went away); `blackhole` closes the open ones and holds each new one, never answering (a
 * host that drops packets); `stall` keeps every connection open and forwards nothing either way until the next
 * `pass`, which delivers what was sent meanwhile (a server stopped with SIGSTOP, then continued).
 */
export type TcpSwitchMode = 'pass' | 'down' | 'blackhole' | 'stall';

/** A loopback TCP pass-through in front of a dependency (PostgreSQL, Temporal), so a test can take it away. */
export interface TcpSwitch {
  /** `127.0.0.1:<port>` of the switch. */
  address: string;
  port: number;
  set(mode: TcpSwitchMode): void;
  /** Stalls only the connection opened last, as `stall` would (one backend stopped, its siblings answering). */
  stallLatest(): void;
  stop(): Promise<void>;
}

/** A client connection and its upstream, which a stall stops forwarding between and a pass resumes. */
interface Pair {
  client: net.Socket;
  upstream?: net.Socket;
}

export async function startTcpSwitch(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpSwitch> {
  let mode: TcpSwitchMode = 'pass';
  const open = new Set<net.Socket>();
  const pairs = new Set<Pair>();
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => open.delete(socket));
  };
  const forward = (pair: Pair) => {
    const { client } = pair;
    if (!pair.upstream) {
      const upstream = net.connect(targetPort, targetHost);
      pair.upstream = upstream;
      track(upstream);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    }
    client.pipe(pair.upstream);
    pair.upstream.pipe(client);
  };
  const hold = (pair: Pair) => {
    pair.client.unpipe();
    pair.upstream?.unpipe();
    pair.client.pause();
    pair.upstream?.pause();
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'down') client.destroy();
    if (mode === 'down' || mode === 'blackhole') return;
    const pair: Pair = { client };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    if (mode === 'pass') forward(pair);
    else client.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const closeAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    address: `127.0.0.1:${port}`,
    port,
    set(next) {
      const previous = mode;
      mode = next;
      if (next === 'stall') for (const pair of pairs) hold(pair);
      else if (next !== 'pass') closeAll();
      else if (previous === 'stall') for (const pair of pairs) forward(pair);
    },
    stallLatest() {
      const latest = [...pairs].at(-1);
      if (latest) hold(latest);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        closeAll();
        server.close(() => resolve());
      }),
  };
}
