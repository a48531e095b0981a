/** `convengine demo` refuses a bad command line instead of running the demo with it. */
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

describe('convengine demo usage', () => {
  it.each([
    [['--bogus'], 'demo: unexpected argument(s): --bogus'],
    [['--url'], '--url needs a value'],
    [['--json=yes'], '--json takes no value'],
  ])('demo %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['demo', ...args], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('says in --help which environment it reads: the port and the API token', async () => {
    const run = await runConvengine(['demo', '--help'], NOWHERE, 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: convengine demo/);
    expect(run.stdout).toContain('$PORT');
    expect(run.stdout).toContain('Sends API_TOKEN, when it is set, as the bearer token');
    expect(run.stdout).toContain('through the HTTP API (PORT, API_TOKEN)');
  });
});
