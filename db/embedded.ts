import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  dataDir: string | null;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Directory for the data files; null keeps everything in memory. */
  dataDir: string | null;
  port?: number;
  maxConnections?: number;
}

/**
 * PostgreSQL compiled to WASM (PGlite), served over the wire protocol on loopback so the app uses
 * the same `pg` driver as in production. PGlite is single-session: the socket server multiplexes
 * connections and, while one of them is inside a transaction, holds the others back — so code
 * must never wait on a second connection while it keeps a transaction open.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ?? undefined);
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 32,
  });
  await server.start();
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    dataDir: options.dataDir,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
