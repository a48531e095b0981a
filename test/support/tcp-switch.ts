import net, { type AddressInfo } from 'node:net';

/**
 * How a TcpSwitch treats connections: `pass` forwards them; `down` closes every open one and each new one as it
 * arrives (a server that went away); `blackhole` closes the open ones and holds each new one, never answering (a
 * host that drops packets).
 */
export type TcpSwitchMode = 'pass' | 'down' | 'blackhole';

/** A loopback TCP pass-through in front of a dependency (PostgreSQL, Temporal), so a test can take it away. */
export interface TcpSwitch {
  /** `127.0.0.1:<port>` of the switch. */
  address: string;
  port: number;
  set(mode: TcpSwitchMode): void;
  stop(): Promise<void>;
}

export async function startTcpSwitch(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpSwitch> {
  let mode: TcpSwitchMode = 'pass';
  const open = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    open.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => open.delete(socket));
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode === 'down') client.destroy();
    if (mode !== 'pass') return;
    const upstream = net.connect(targetPort, targetHost);
    track(upstream);
    client.pipe(upstream).on('close', () => client.destroy());
    upstream.pipe(client).on('close', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
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
      mode = next;
      if (next !== 'pass') closeAll();
    },
    stop: () =>
      new Promise<void>((resolve) => {
        closeAll();
        server.close(() => resolve());
      }),
  };
}
