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
import { runConvengine } from '../support/run-cli';

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
      env: {
        ...EMBEDDED_ENV,
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_TASK_QUEUE: 'banner-turns',
        DATABASE_URL: tdb.url,
        LOG_LEVEL: 'warn',
      },
      ready: /^Try: .*\n/m,
      readyTimeoutMs: 150_000,
    });
    const banner = start.tail(4_000);
    const api = start.match(/API (http:\/\/127\.0\.0\.1:\d+)/) as string;
    expect(banner).toContain(`ConvEngine ready in `);
    // The namespace and task queue too: on a shared server they tell two deployments apart.
    expect(banner).toMatch(
      /: API http:\/\/127\.0\.0\.1:\d+ \(Temporal at 127\.0\.0\.1:\d+ \(plaintext\), namespace default, task queue banner-turns\)\n/
    );
    expect(banner.split(temporal.address)).toHaveLength(2);
    expect(banner).toContain(`Try: npx convengine demo --url ${api}   or   curl -s ${api}/docs/openapi.json\n`);
  }, 180_000);

  // A typo in TEMPORAL_NAMESPACE created a new namespace, 30 days' retention, on a cluster others share; on our dev
  // server, which cannot create one, it ended in the server's raw status dump.
  it('refuses a namespace the external server lacks, in one line naming setup-temporal, and creates nothing', async () => {
    // A database of its own: the first test's is bound to that deployment (db/deployment.ts).
    const own = await createTestDatabase();
    const env = {
      ...EMBEDDED_ENV,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'teamb',
      DATABASE_URL: own.url,
    };
    const run = await runConvengine(['start', '--port', '0', '--home', home], { ...env, LOG_LEVEL: 'warn' }, 120_000);
    await own.drop();
    expect({ code: run.code, stderr: run.stderr }).toEqual({
      code: 1,
      stderr:
        `ConvEngine failed to start: namespace teamb does not exist on ${temporal.address} (plaintext): run \`convengine setup-temporal\` to ` +
        'create it (check TEMPORAL_NAMESPACE for a typo first; `convengine start` creates a namespace only on a ' +
        'Temporal server it runs itself)\n',
    });
    expect(run.stdout).not.toContain('ConvEngine ready');
  }, 150_000);
});
