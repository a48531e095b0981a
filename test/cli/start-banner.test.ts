/**
 * What `convengine start` prints once it is up. An outsider on `--port 43700` was told "Try: npx convengine demo",
 * which looks at 127.0.0.1:3000 and, finding nothing, ran a private stack instead of theirs; and with an external
 * TEMPORAL_ADDRESS the banner said the address twice: "(Temporal at 127.0.0.1:43710 (plaintext) at 127.0.0.1:43710)".
 */
import { rmSync } from 'node:fs';
import { demoCommandFor } from '../../cli/commands/start';
import { startDevServer, type DevServer } from '../../devserver';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { ConvengineProcess } from '../support/child-processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { EMBEDDED_ENV, newHome } from '../support/embedded-stack';

describe('the demo the banner suggests', () => {
  it('is `demo` alone on the default 127.0.0.1:3000, where demo looks, and names any other API with --url', () => {
    expect(demoCommandFor('http://127.0.0.1:3000')).toBe('npx convengine demo');
    expect(demoCommandFor('http://127.0.0.1:43700')).toBe('npx convengine demo --url http://127.0.0.1:43700');
    expect(demoCommandFor('http://0.0.0.0:3000')).toBe('npx convengine demo --url http://0.0.0.0:3000');
  });
});

describe('convengine start on an external Temporal, on a port of its own', () => {
  const home = newHome();
  let temporal: DevServer;
  let tdb: TestDatabase;
  let start: ConvengineProcess | null = null;
  beforeAll(async () => {
    temporal = await startDevServer({ port: 0, searchAttributes: { ...TURN_SEARCH_ATTRIBUTES } });
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await start?.stop(30_000);
    await temporal?.stop();
    await tdb?.drop();
    rmSync(home, { recursive: true, force: true });
  });

  it('names Temporal once, and the demo with this API', async () => {
    start = await ConvengineProcess.start(['start', '--port', '0', '--home', home], {
      name: 'start',
      env: { ...EMBEDDED_ENV, TEMPORAL_ADDRESS: temporal.address, DATABASE_URL: tdb.url, LOG_LEVEL: 'warn' },
      ready: /^Try: .*\n/m,
      readyTimeoutMs: 150_000,
    });
    const banner = start.tail(4_000);
    const api = start.match(/API (http:\/\/127\.0\.0\.1:\d+)/) as string;
    expect(banner).toContain(`ConvEngine ready in `);
    expect(banner).toMatch(/: API http:\/\/127\.0\.0\.1:\d+ \(Temporal at 127\.0\.0\.1:\d+ \(plaintext\)\)\n/);
    expect(banner.split(temporal.address)).toHaveLength(2);
    expect(banner).toContain(`Try: npx convengine demo --url ${api}   or   curl -s ${api}/docs/openapi.json\n`);
  }, 180_000);
});
