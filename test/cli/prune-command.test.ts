/**
 * `claims prune` / `conversations prune` (cli/prune-command.ts): an age too large for a date, or
 * `--older-than` without its value, is a usage error; a database that cannot be reached is named by
 * the driver's reason, never by drizzle's "Failed query: <statement> params: ...".
 */
import { ADMIN_DATABASE_URL } from '../support/database';
import { runConvengine } from '../support/run-cli';

const UNREACHABLE = 'postgres://convengine@127.0.0.1:1/none';

function missingDatabase(): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = '/ce_no_such_database';
  return url.toString();
}

describe('convengine <noun> prune', () => {
  it.each([
    [
      ['claims', 'prune', '--older-than', '99999999999d'],
      '--older-than is too large (at most 100 years; got 99999999999d)',
    ],
    [
      ['conversations', 'prune', '--older-than', '99999999999999d', '--dry-run'],
      '--older-than is too large (at most 100 years; got 99999999999999d)',
    ],
    [['conversations', 'prune', '--older-than', '101y'], '--older-than is too large (at most 100 years; got 101y)'],
    [['claims', 'prune', '--older-than'], '--older-than needs a value'],
    [['conversations', 'prune', '--dry-run', '--older-than'], '--older-than needs a value'],
  ])('%j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(args, { DATABASE_URL: UNREACHABLE }, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it.each([
    ['claims', UNREACHABLE, 'connect ECONNREFUSED 127.0.0.1:1'],
    ['conversations', UNREACHABLE, 'connect ECONNREFUSED 127.0.0.1:1'],
    ['claims', missingDatabase(), 'database "ce_no_such_database" does not exist'],
  ])('%s prune on %s says why the database failed, not the SQL', async (noun, url, why) => {
    const run = await runConvengine([noun, 'prune', '--older-than', '31d'], { DATABASE_URL: url }, 30_000);
    expect(run).toMatchObject({ code: 1, stderr: `${noun} prune failed: ${why}\n` });
  });

  it.each(['100y', '36525d'])('takes --older-than %s, the 100 years it says it takes', async (age) => {
    const run = await runConvengine(
      ['conversations', 'prune', '--older-than', age],
      { DATABASE_URL: UNREACHABLE },
      30_000
    );
    expect(run).toMatchObject({ code: 1, stderr: 'conversations prune failed: connect ECONNREFUSED 127.0.0.1:1\n' });
  });
});
