import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../errors';
import { CONSOLE_HEADERS } from '../page-headers';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The console's folder: `console/` at the repository root, or `dist/console` in a build (both are
 * two levels above this file's folder).
 */
export function consoleDir(): string {
  return join(__dirname, '..', '..', 'console');
}

/** Every servable file of the console, read once: a fixed set, so no request path reaches the file system. */
function loadAssets(dir: string): Map<string, { type: string; body: Buffer }> {
  const assets = new Map<string, { type: string; body: Buffer }>();
  if (!existsSync(dir)) throw new Error(`the console's assets are missing: ${dir}`);
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const type = TYPES[extname(name)];
    if (type) assets.set(name.split('\\').join('/'), { type, body: readFileSync(join(dir, name)) });
  }
  return assets;
}

/** Serves the turn console at /console: static files, no build step (see console/README.md). */
export function consoleAssetRoutes(app: FastifyInstance, dir = consoleDir()): void {
  const assets = loadAssets(dir);
  const send = (name: string) => {
    const asset = assets.get(name);
    if (!asset) throw notFound('NOT_FOUND', `No console file ${name}.`);
    return asset;
  };
  const headers = { 'cache-control': 'no-cache', ...CONSOLE_HEADERS };
  const index = async (_request: unknown, reply: FastifyReply) => {
    const asset = send('index.html');
    return reply.headers({ ...headers, 'content-type': asset.type }).send(asset.body);
  };
  app.get('/console', index);
  app.get('/console/', index);
  app.get('/console/*', async (request, reply) => {
    const asset = send((request.params as { '*': string })['*']);
    return reply.headers({ ...headers, 'content-type': asset.type }).send(asset.body);
  });
}
