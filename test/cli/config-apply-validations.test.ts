import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configCommand } from '../../cli/commands/config';
import type { CliIo } from '../../cli/command';
import { loadEnv } from '../../config/env';
import type * as Validate from '../../core/config/validate';
import { readExactConfigRows } from '../../db/config/exact-rows';
import { configToYaml } from '../../db/config/yaml-tree';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

/** How many times a whole config set was validated. */
const mockValidations = { count: 0 };
jest.mock('../../core/config/validate', () => {
  const actual = jest.requireActual<typeof Validate>('../../core/config/validate');
  return {
    ...actual,
    validateConfig: (...args: Parameters<typeof actual.validateConfig>) => {
      mockValidations.count += 1;
      return actual.validateConfig(...args);
    },
  };
});

/**
 * Validating a large deployment's config takes seconds, under the lock every config write waits for, so `config apply`
 * validates a set once before it writes it (the tree, with the engine's checks), and the written set again only where
 * it reads back other than written: never the same rows twice.
 */
describe('convengine config apply', () => {
  let tdb: TestDatabase;
  let dir = '';
  const databaseUrl = process.env['DATABASE_URL'];
  const io: CliIo = { out: () => {}, err: () => {}, stdin: process.stdin };
  const apply = async () => {
    mockValidations.count = 0;
    expect(await configCommand.run(['apply', dir], io, loadEnv())).toBe(0);
    return mockValidations.count;
  };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
    dir = await mkdtemp(join(tmpdir(), 'convengine-apply-'));
    for (const [name, text] of configToYaml(await readExactConfigRows(tdb.db))) await writeFile(join(dir, name), text);
    process.env['DATABASE_URL'] = tdb.url;
  });
  afterAll(async () => {
    if (databaseUrl === undefined) delete process.env['DATABASE_URL'];
    else process.env['DATABASE_URL'] = databaseUrl;
    await rm(dir, { recursive: true, force: true });
    await tdb.drop();
  });

  it('validates an unchanged tree once, and a changed one once: the written rows are the validated ones', async () => {
    expect(await apply()).toBe(1);
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    await writeFile(join(dir, 'ce_response.yaml'), responses.replace(/exact_text: (.+)/, 'exact_text: Changed. $1'));
    expect(await apply()).toBe(1);
  });

  it('validates the written set again when it reads back other than written (a number a double does not hold)', async () => {
    const responses = await readFile(join(dir, 'ce_response.yaml'), 'utf8');
    const schema =
      'json_schema: { type: object, properties: { n: { type: integer, maximum: 12345678901234567890123 } } }';
    await writeFile(join(dir, 'ce_response.yaml'), responses.replace('json_schema: null', schema));
    expect(await apply()).toBe(2);
  });
});
