import { createServer, type Server } from 'node:net';

/**
 * A server that answers every startup packet as PgBouncer answers one carrying a parameter it does not track: a FATAL
 * ErrorResponse (`unsupported startup parameter: …`, 08P01), then closes the connection.
 */
export interface RefusingPooler {
  url: string;
  close(): Promise<void>;
}

function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', code],
      ['M', message],
    ].map(([type, value]) => Buffer.from(`${type}${value}\0`, 'utf8'))
  );
  const length = Buffer.alloc(4);
  length.writeInt32BE(4 + fields.length + 1);
  return Buffer.concat([Buffer.from('E'), length, fields, Buffer.from([0])]);
}

export async function startRefusingPooler(message: string, code = '08P01'): Promise<RefusingPooler> {
  const server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.end(errorResponse(code, message)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `postgres://convengine@127.0.0.1:${port}/engine`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
