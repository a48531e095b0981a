import { checkConfig } from '../../cli/doctor/config';
import { checkDatabase, checkDeployment } from '../../cli/doctor/database';
import { rebindDeployment } from '../../db/deployment';
import { CONFIG_EMPTY_WARNING } from '../../core/config/empty';
import { configVersionOf, readConfigRows } from '../../db/config/load';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(60_000);

// An unterminated character class in a live rule, which this build's validation refuses.
const BREAK_RULE = "UPDATE ce_rule SET match_pattern = '(?i)([a-' WHERE rule_id = 10";

/** `convengine doctor`'s database and config findings (cli/doctor/database.ts, config.ts) on a real PostgreSQL. */
describe('doctor: database and config', () => {
  let tdb: TestDatabase;
  beforeEach(async () => {
    tdb = await createTestDatabase();
  });
  afterEach(async () => tdb?.drop());

  it('warns when a newer build migrated the database: migrations this build does not know', async () => {
    expect(await checkDatabase(tdb.url)).toMatchObject({ level: 'ok' });
    await tdb.pool.query("INSERT INTO ce_schema_migrations (name, checksum) VALUES ('0020_future.sql', 'x')");
    expect(await checkDatabase(tdb.url)).toEqual({
      check: 'database',
      level: 'warn',
      message: expect.stringMatching(
        /^the database has 1 migration\(s\) this build does not know \(0020_future\.sql\): a newer build migrated it\./
      ),
    });
  });

  it('says the tables are refused and which stored snapshot is served instead, without recording one', async () => {
    await seedPacks(tdb.db, ['faq']);
    const served = configVersionOf(await readConfigRows(tdb.db));
    await createConfigStore(tdb.db).current(); // in service once, so stored
    expect(await checkConfig(tdb.url)).toEqual({ check: 'config', level: 'ok', message: `config ${served} validates` });
    await tdb.pool.query(BREAK_RULE);
    const stored = async () =>
      (await tdb.pool.query('SELECT version, last_served_revision FROM ce_config_snapshot ORDER BY version')).rows;
    const before = await stored();
    expect(await checkConfig(tdb.url)).toEqual({
      check: 'config',
      level: 'warn',
      message: `the current config is refused: serving stored snapshot ${served}; run convengine validate-config (1 violation(s))`,
    });
    expect(await stored()).toEqual(before);
  });

  it('fails on an empty config (no intent, no response: nothing seeded or applied), which every message fails on', async () => {
    expect(await checkConfig(tdb.url)).toEqual({ check: 'config', level: 'fail', message: CONFIG_EMPTY_WARNING });
    await seedPacks(tdb.db, ['faq']);
    expect(await checkConfig(tdb.url)).toMatchObject({ check: 'config', level: 'ok' });
  });

  it('fails when the tables are refused and no stored snapshot validates', async () => {
    await seedPacks(tdb.db, ['faq']);
    await tdb.pool.query('DELETE FROM ce_config_snapshot');
    await tdb.pool.query(BREAK_RULE);
    expect(await checkConfig(tdb.url)).toMatchObject({
      level: 'fail',
      message: expect.stringContaining('no stored snapshot validates: every new turn fails CONFIG_INVALID'),
    });
  });

  it('names the deployment the database is bound to, and fails on another one, as a worker there would refuse', async () => {
    const own = { namespace: 'default', taskQueue: 'team-a-turns' };
    expect(await checkDeployment(tdb.url, own)).toEqual({
      check: 'deployment',
      level: 'ok',
      message: expect.stringMatching(
        /^not bound to a deployment yet: .*\(here namespace "default", task queue "team-a-turns"\)$/
      ),
    });
    await rebindDeployment(tdb.pool, own);
    expect(await checkDeployment(tdb.url, own)).toEqual({
      check: 'deployment',
      level: 'ok',
      message: expect.stringMatching(/^bound to Temporal namespace "default", task queue "team-a-turns" since \d{4}-/),
    });
    expect(await checkDeployment(tdb.url, { ...own, taskQueue: 'team-b-turns' })).toEqual({
      check: 'deployment',
      level: 'fail',
      message: expect.stringContaining(
        'belongs to another deployment: it is bound to Temporal namespace "default", task queue "team-a-turns"'
      ),
    });
  });
});
