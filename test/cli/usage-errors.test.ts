/**
 * `config`, `seed`, `whatif` and `sql-check` read their command line with the same strict parser as the other
 * commands: an undeclared option, a value option without a value and a flag given a value are usage errors
 * (exit 2) before any database is opened, as is a missing or unknown command.
 */
import { runConvengine } from '../support/run-cli';

/** Everything a command needs, pointing nowhere: api and worker check their needs before their arguments. */
const NOWHERE = {
  DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none',
  TEMPORAL_ADDRESS: '127.0.0.1:1',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
};

describe('usage errors of the config-author commands', () => {
  it.each([
    [['seed', 'faq', '--bogus'], 'seed: unexpected argument(s): --bogus'],
    [['seed', '--list=yes'], '--list takes no value'],
    [['seed'], 'name a pack, or "all"'],
    [['config', 'export', 'dir', '--bogus'], 'config: unexpected argument(s): --bogus'],
    [['config', 'validate', 'dir', '--dry-run'], 'config validate: --dry-run is only for apply'],
    [['config', 'apply', 'dir', 'extra'], 'config: unexpected argument(s): extra'],
    [['whatif', '--config'], '--config needs a value'],
    [['whatif', '--config', 'dir', '--since', '1d', 'extra'], 'whatif: unexpected argument(s): extra'],
    [['whatif', '--config', 'dir', '--json=no', '--since', '1d'], '--json takes no value'],
    // The last value was read: a replay of the second conversation, reported as if of all that were named.
    [
      ['whatif', '--config', 'dir', '--conversation', 'a', '--conversation', 'b'],
      '--conversation may be given only once',
    ],
    [['start', '--port', '3000', '--port=3001'], '--port may be given only once'],
    // Instants PostgreSQL cannot take were refused by the database: exit 3, "date/time field value out of range".
    ...['0000-01-01', '0001-01-01T00:00+01:00', '9999-12-31T23:30-01:00', '99999999d'].map(
      (since): [string[], string] => [
        ['whatif', '--config', 'current', '--since', since],
        `--since "${since}" must be an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z`,
      ]
    ),
    [['sql-check', '--allow-function'], '--allow-function needs a value'],
    [['sql-check', '--allow-function', ' '], '--allow-function needs a value'],
    // These printed their reason without the synopsis, or (seed --list, sre list) ignored what they do not read.
    [['migrate', 'extra'], 'migrate: unexpected argument(s): extra'],
    [['api', '--port', '5'], 'api: unexpected argument(s): --port 5'],
    [['worker', '--bogus'], 'worker: unexpected argument(s): --bogus'],
    [['validate-config', '--explain=1'], 'validate-config takes only --explain (got: --explain=1)'],
    [['config', 'bogus', '/tmp'], 'unknown action "bogus" (export, diff, apply, validate)'],
    [['start', '--temporal=x'], '--temporal must be one of embedded, cli, auto (got "x")'],
    [['seed', '--list', 'extra'], 'seed --list takes nothing else (got: --list extra)'],
    [
      ['sre', 'list', '--call', '5', '--result', '{bad', '--reason', 'x'],
      'sre list does not take --call --result --reason (see its line below)',
    ],
    [['sre', 'retry', '--workflow-id', 'w', '--json'], 'sre retry does not take --json (see its line below)'],
  ])('%j exits 2 with "%s" and the synopsis', async (args, message) => {
    const run = await runConvengine(args, NOWHERE, 30_000);
    expect(run.code).toBe(2);
    const [first, second] = run.stderr.split('\n');
    expect(first).toBe(message);
    expect(second).toMatch(/^Usage: convengine /);
  });
});

describe('a missing or unknown command', () => {
  // An outsider's `npx convengine bogus; echo $?` printed 1, though `--help` and the docs say 2 is a usage error.
  it('exits 2 with the reason and the usage on stderr', async () => {
    const run = await runConvengine(['bogus'], NOWHERE, 30_000);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    const [first, second] = run.stderr.split('\n');
    expect([first, second]).toEqual(['Unknown command "bogus".', 'Usage: convengine <command> [options]']);
  });

  it('exits 2 with the usage on stderr when no command is given', async () => {
    const run = await runConvengine([], NOWHERE, 30_000);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(/^Usage: convengine <command> \[options\]\n/);
  });

  it('reads `help <command>` as `<command> --help`, not as the top-level usage', async () => {
    const run = await runConvengine(['help', 'start'], NOWHERE, 30_000);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: convengine start /);
  });

  it('leaves `--help` at exit 0, the usage on stdout', async () => {
    const run = await runConvengine(['--help'], NOWHERE, 30_000);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Usage: convengine <command> \[options\]\n/);
  });
});

describe('whatif that cannot run', () => {
  it.each(['1d', '0001-01-01T00:00-01:00', '9999-12-31T23:59:59.999Z'])(
    'exits 3 with the reason, not 1 (a difference) or 2 (bad input), since %s',
    async (since) => {
      const run = await runConvengine(['whatif', '--config', 'current', '--since', since], NOWHERE, 30_000);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^whatif failed: .*ECONNREFUSED/);
    }
  );
});
