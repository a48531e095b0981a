/** `convengine demo` refuses a bad command line instead of running the demo with it. */
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

describe('convengine demo usage errors', () => {
  it.each([
    [['--bogus'], 'demo: unexpected argument(s): --bogus'],
    [['--url'], '--url needs a value'],
    [['--json=yes'], '--json takes no value'],
  ])('demo %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['demo', ...args], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });
});
