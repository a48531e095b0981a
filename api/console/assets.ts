import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { notFound } from '../errors';
import { CONSOLE_HEADERS } from '../page-headers';
import { uuidParam } from '../schemas/common';
import { turnIdParam } from '../turns/turn-id';

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

/**
 * `lib/ids.js`, the console's module of the ids its pages are addressed by: the patterns the API's routes validate
 * with (a conversation id, a turn's workflow id), written from their one definition, so that the console checks an id
 * from its address as the API would before it builds any request from it.
 */
function idsModule(): { type: string; body: Buffer } {
  const text = [
    '// Written by the API (api/console/assets.ts) from the patterns its routes validate ids with.',
    `export const CONVERSATION_ID = new RegExp(${JSON.stringify(uuidParam.pattern)});`,
    `export const TURN_ID = new RegExp(${JSON.stringify(turnIdParam.pattern)});`,
    '',
  ].join('\n');
  return { type: TYPES['.js'] as string, body: Buffer.from(text) };
}

/** Serves the turn console at /console: static files, no build step (see console/README.md). */
export function consoleAssetRoutes(app: FastifyInstance, dir = consoleDir()): void {
  const assets = loadAssets(dir).set('lib/ids.js', idsModule());
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
