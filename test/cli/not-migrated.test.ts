import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

// Each test spawns the CLI from sources (tsx); on a loaded two-core machine that takes seconds.
jest.setTimeout(120_000);

const HINT = 'the database is not migrated: no migration applied: run `convengine migrate`';

/** A command run on a database `convengine migrate` never ran on says so, not `relation "ce_rule" does not exist`. */
describe('commands on a database that is not migrated', () => {
  let tdb: TestDatabase;
  let work: string;
  beforeAll(async () => {
    tdb = await createTestDatabase({ migrated: false });
    work = await mkdtemp(join(tmpdir(), 'convengine-unmigrated-'));
    await writeFile(join(work, 'ce_intent.yaml'), '[]\n');
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
    await tdb.drop();
  });

  it.each([
    [['config', 'export', '<work>/export'], `config failed: ${HINT}`, 1],
    [['config', 'diff', '<work>'], `config failed: ${HINT}`, 1],
    [['config', 'apply', '<work>'], `config failed: ${HINT}`, 1],
    [['validate-config'], `validate-config failed: ${HINT}`, 1],
    [['whatif', '--config', 'current', '--conversation', 'c1'], `whatif failed: ${HINT}`, 3],
    [['seed', 'faq'], `seed failed: ${HINT}`, 1],
  ])('convengine %j', async (args, line, code) => {
    const run = await runConvengine(
      args.map((a) => a.replace('<work>', work)),
      { DATABASE_URL: tdb.url }
    );
    expect(run.stderr.trim()).toBe(line);
    expect(run.code).toBe(code);
  });
});
