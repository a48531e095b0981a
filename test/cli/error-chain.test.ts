/** Why a CLI command failed, in one line: an error quotes what it failed on, whose controls are shown, not obeyed. */
import { Pool } from 'pg';
import { errorChain, rawErrorChain } from '../../cli/error-chain';
import { databaseError, databaseFailure, migrationFailure, rawDatabaseError } from '../../cli/database-failure';

it('shows the controls of the errors it chains as code points', () => {
  const cause = new Error('row EVIL\u202eDESREVER refused\r\nwarning: forged');
  const err = new Error('tool x\u001b[2J\u009b31m failed', { cause });
  expect(errorChain(err)).toBe('tool x⟨U+001B⟩[2J⟨U+009B⟩31m failed: row EVIL⟨U+202E⟩DESREVER refused⟨U+000D⟩');
});

/**
 * A database failure names the database: DATABASE_URL's host and name are the text whoever set it wrote (the name
 * percent-decoded), so a terminal line shows their controls too, not only the errors' (a connect timeout's line named
 * the database as it was written); doctor's --json takes the raw form.
 */
it("shows the controls of a database's name in a failure's line, and keeps them in the raw form", async () => {
  // Never connected: each line is made from its options alone.
  const pool = new Pool({
    connectionString: 'postgres://u@db:5432/x%1B%5B2J%0Dforged%E2%80%AE',
    connectionTimeoutMillis: 5_000,
  });
  const timeout = new Error('Connection terminated due to connection timeout', { cause: new Error('ETIMEDOUT') });
  const where = 'the database at db:5432/x⟨U+001B⟩[2J⟨U+000D⟩forged⟨U+202E⟩ did not answer a connection within 5s';
  for (const line of [
    databaseError(pool, timeout),
    migrationFailure(pool, timeout),
    await databaseFailure(pool, timeout),
  ])
    expect(line.startsWith(`${where}: `)).toBe(true);
  const rawWhere = 'the database at db:5432/x\u001b[2J\rforged\u202e did not answer';
  expect(rawDatabaseError(pool, timeout).startsWith(rawWhere)).toBe(true);
  const refused = new Error('refused \u001b[2J by db');
  expect(databaseError(pool, refused)).toBe('refused ⟨U+001B⟩[2J by db');
  expect(rawDatabaseError(pool, refused)).toBe('refused \u001b[2J by db');
  expect(rawErrorChain(new Error('a\u001b[2J', { cause: new Error('b\u202e') }))).toBe('a\u001b[2J: b\u202e');
});
