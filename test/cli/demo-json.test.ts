/** `convengine demo --json` says in each line whether its turn gave the expected reply, and why not. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

/** An API that is up (/healthz) but refuses every other request as one without its bearer token does. */
function refusingApi(): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { code: 'UNAUTHORIZED', message: 'bearer token required' } }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('convengine demo --json', () => {
  it('carries ok and mismatch on every turn line, so a failing exit has its reason on stdout', async () => {
    const server = await refusingApi();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const run = await runConvengine(['demo', '--json', '--url', url], { ...NOWHERE, API_TOKEN: undefined }, 60_000);
      expect(run.code).toBe(1);
      const turns = run.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => 'turn' in line);
      expect(turns.length).toBeGreaterThan(0);
      for (const turn of turns) {
        expect(turn['ok']).toBe(false);
        // A conversation's first turn says why it failed; its later turns that it did not run.
        expect(turn['mismatch']).toContain(turn['turn'] === 1 ? 'HTTP 401' : 'not run');
      }
    } finally {
      server.close();
    }
  });
});
