import { createServer } from 'node:net';

function listenOn(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : null;
      server.close(() => resolve(bound));
    });
  });
}

/** A loopback port free right now (the OS picks it); the server may still lose it in a race. */
export async function freePort(): Promise<number> {
  const port = await listenOn(0);
  if (port === null) throw new Error('no free loopback port');
  return port;
}

export async function portTaken(port: number): Promise<boolean> {
  return (await listenOn(port)) === null;
}
