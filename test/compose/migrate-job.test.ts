/**
 * The compose `migrate` job, run as Docker would run it (its command, with compose's `$$` escape undone and its
 * SEED_PACKS default), on a database no process has touched: it leaves a migrated database with a config every
 * check accepts, not an empty one (every message refused), unless SEED_PACKS=none says the operator loads their own.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isEmptyConfig } from '../../core/config/empty';
import { readConfigRows } from '../../db/config/load';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(180_000);

const root = join(__dirname, '..', '..');
const migrate = (
  parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: { migrate: { command: string[]; environment: Record<string, string> } };
  }
).services.migrate;

/** The value compose gives `${NAME:-default}` when .env does not set NAME. */
const defaulted = (value: string | undefined): string | undefined => /^\$\{\w+:-(.*)\}$/.exec(value ?? '')?.[1];

function runJob(databaseUrl: string, seedPacks: string): Promise<{ code: number; output: string }> {
  const [shell, flag, script] = migrate.command;
  if (shell !== '/bin/sh' || flag !== '-c' || script === undefined) throw new Error('migrate runs no shell script');
  const env = { ...process.env, CONVENGINE_USE_SOURCES: '1', DATABASE_URL: databaseUrl, SEED_PACKS: seedPacks };
  return new Promise((resolve) => {
    execFile(shell, [flag, script.replaceAll('$$', '$')], { cwd: root, env, timeout: 170_000 }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${out}${err}` })
    );
  });
}

describe('the docker-compose migrate job', () => {
  let tdb: TestDatabase | undefined;
  afterEach(async () => {
    await tdb?.drop();
    tdb = undefined;
  });

  it('migrates and seeds the bundled packs by default, so the config it leaves is valid and not empty', async () => {
    tdb = await createTestDatabase({ migrated: false });
    const seedPacks = defaulted(migrate.environment['SEED_PACKS']);
    expect(seedPacks).toBe('all');
    const job = await runJob(tdb.url, seedPacks!);
    expect(job).toMatchObject({ code: 0, output: expect.stringMatching(/^seeded faq, /m) });
    expect(isEmptyConfig(await readConfigRows(tdb.db))).toBe(false);
    const check = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
    expect(check).toMatchObject({ code: 0, stdout: expect.stringMatching(/^config valid: version /m) });
  });

  it('only migrates with SEED_PACKS=none, which validate-config then reports as an empty config', async () => {
    tdb = await createTestDatabase({ migrated: false });
    const job = await runJob(tdb.url, 'none');
    expect(job).toMatchObject({ code: 0, output: expect.stringContaining('SEED_PACKS=none: no bundled pack seeded') });
    expect(isEmptyConfig(await readConfigRows(tdb.db))).toBe(true);
    const check = await runConvengine(['validate-config'], { DATABASE_URL: tdb.url });
    expect(check).toMatchObject({ code: 1, stderr: expect.stringMatching(/^config empty: /) });
  });
});
