import { randomUUID } from 'node:crypto';
import { checkAuditTrail } from '../../cli/doctor/config';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** `convengine doctor`'s audit-trail finding (cli/doctor/config.ts) on a real PostgreSQL. */
describe('doctor: audit trail', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => tdb?.drop());

  const setPolicy = async (settings: [string, string][]) => {
    await tdb.pool.query(`DELETE FROM ce_config WHERE config_type = 'AuditService'`);
    for (const [key, value] of settings) {
      await tdb.pool.query(
        `INSERT INTO ce_config (config_type, config_key, config_value) VALUES ('AuditService', $1, $2)`,
        [key, value]
      );
    }
  };

  it('an empty database: no rows, no conversation, the default policy', async () => {
    expect(await checkAuditTrail(tdb.url)).toEqual({
      check: 'audit-trail',
      level: 'ok',
      message: expect.stringMatching(/^ce_audit \d+\.\d MiB, ~0 rows; no conversation; audit policy LEVEL=ALL\. Idle/),
    });
  });

  it('counts the rows, ages the oldest idle conversation and names the policy the config sets', async () => {
    const id = randomUUID();
    await tdb.pool.query(
      `INSERT INTO ce_conversation (conversation_id, updated_at) VALUES ($1, now() - interval '40 days')`,
      [id]
    );
    for (const n of [0, 1, 2]) {
      await tdb.pool.query(
        `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
         VALUES ($1, 1, 'USER_INPUT', '{}', $2)`,
        [id, `${id}/1/${n}`]
      );
    }
    await setPolicy([
      ['LEVEL', 'standard'],
      ['PERSIST_META', 'false'],
      ['EXCLUDE_STAGES', 'VERBOSE_*'],
    ]);
    const finding = await checkAuditTrail(tdb.url);
    expect(finding.level).toBe('ok');
    expect(finding.message).toMatch(
      /~3 rows; oldest conversation idle 40\.0 d; audit policy LEVEL=STANDARD, PERSIST_META=false, 1 filter row\(s\)\./
    );
    expect(finding.message).toContain('convengine conversations prune --older-than <age>');
  });

  it('warns when the policy rows do not parse, since the workers refuse that config', async () => {
    await setPolicy([['LEVEL', 'LOUD']]);
    expect(await checkAuditTrail(tdb.url)).toEqual({
      check: 'audit-trail',
      level: 'warn',
      message: expect.stringMatching(/^the audit policy does not parse: AuditService\.LEVEL must be one of ALL/),
    });
  });

  it('fails, without throwing, when the database cannot be read', async () => {
    const finding = await checkAuditTrail('postgres://nobody@127.0.0.1:1/none');
    expect(finding).toMatchObject({ check: 'audit-trail', level: 'fail' });
    expect(finding.message).toMatch(/^cannot read the audit trail: /);
  });
});
