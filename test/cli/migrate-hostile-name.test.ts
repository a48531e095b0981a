/**
 * `convengine migrate --bind-deployment` says which database it bound: the name in DATABASE_URL, which whoever set the
 * environment chose. Its line shows that name's controls as code points: no escape sequence reaches the terminal.
 */
import { randomBytes } from 'node:crypto';
import { toolsRoleOf } from '../../db/tools-role-names';
import { ADMIN_DATABASE_URL, createTestDatabase, withAdmin } from '../support/database';
import { runConvengine } from '../support/run-cli';

jest.setTimeout(180_000);

/** A screen clear, a colour, a carriage return that overwrites the line, a bidi override; its own per run. */
const OWN = `ce_m_${randomBytes(4).toString('hex')}`;
const DATABASE = `${OWN}\u001b[2J\u001b[31m\rok   forged\u202e`;
const DATABASE_SHOWN = `${OWN}⟨U+001B⟩[2J⟨U+001B⟩[31m⟨U+000D⟩ok   forged⟨U+202E⟩`;

describe('migrate --bind-deployment and a hostile database name', () => {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${encodeURIComponent(DATABASE)}`;
  beforeAll(async () => {
    const blank = await createTestDatabase({ migrated: false });
    await blank.close();
    await withAdmin((client) => client.query(`ALTER DATABASE ${blank.name} RENAME TO "${DATABASE}"`)).catch(
      async (err: unknown) => Promise.reject(await blank.drop().then(() => err))
    );
  });
  afterAll(async () => {
    await withAdmin(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
      // The SQL tools role migrate made for it (db/tools-role.ts), which outlives the database.
      await client.query(`DROP ROLE IF EXISTS "${toolsRoleOf(DATABASE)}"`);
    });
  });

  it('names the database it bound with the name’s controls shown', async () => {
    const run = await runConvengine(['migrate', '--bind-deployment'], { DATABASE_URL: url.toString() }, 150_000);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const bound = run.stdout.split('\n').find((line) => line.includes(' bound to Temporal '));
    expect(bound).toContain(`/${DATABASE_SHOWN} bound to Temporal namespace "default"`);
    // eslint-disable-next-line no-control-regex -- finding them is the point
    expect(run.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/u);
  });
});
