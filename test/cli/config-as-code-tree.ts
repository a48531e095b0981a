import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { runConvengine } from '../support/run-cli';

/** A config tree's files by name, as text. */
export async function readTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) out[name] = await readFile(join(dir, name), 'utf8');
  return out;
}

/**
 * What the `convengine config` tests (config-as-code*.test.ts) run on: a database with every seed pack and a scratch
 * directory for trees, set up in the file's beforeAll and removed after its tests; `cli` runs `convengine config`.
 */
export function seededConfigDatabase() {
  const seeded = {
    tdb: undefined as unknown as TestDatabase,
    work: '',
    cli: (...args: string[]) => runConvengine(['config', ...args], { DATABASE_URL: seeded.tdb.url }),
  };
  beforeAll(async () => {
    seeded.tdb = await createTestDatabase();
    await seedPacks(seeded.tdb.db, ['all']);
    seeded.work = await mkdtemp(join(tmpdir(), 'convengine-config-'));
  });
  afterAll(async () => {
    await rm(seeded.work, { recursive: true, force: true });
    await seeded.tdb.drop();
  });
  return seeded;
}
