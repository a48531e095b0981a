/**
 * `convengine start` refuses a bad command line before it starts anything: an unknown option, an
 * option without its value (`--home` alone once made a directory named "true"), a port out of range.
 * The environment names servers that do not answer, so a command line wrongly accepted fails fast.
 */
import { runConvengine } from '../support/run-cli';

const NOWHERE = { TEMPORAL_ADDRESS: '127.0.0.1:1', DATABASE_URL: 'postgres://convengine@127.0.0.1:1/none' };

describe('convengine start usage errors', () => {
  it.each([
    [['--bogus'], 'start: unexpected argument(s): --bogus'],
    [['--home'], '--home needs a value'],
    [['--home', '--port', '0'], '--home needs a value'],
    [['--port', '-1'], '--port expects a number from 0 to 65535'],
    [['--port', 'abc'], '--port expects a number from 0 to 65535'],
    [['--port', '70000'], '--port expects a number from 0 to 65535'],
    [['--temporal-port', '99999'], '--temporal-port expects a number from 0 to 65535'],
    [['--temporal-ui-port', '99999'], '--temporal-ui-port expects a number from 0 to 65535'],
    [['--temporal-ui-port', 'ui'], '--temporal-ui-port expects a number from 0 to 65535'],
    [['--temporal-ui-port'], '--temporal-ui-port needs a value'],
  ])('start %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['start', ...args], NOWHERE, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
    expect(run.stderr).toMatch(/^Usage: convengine start /m);
  });
});
