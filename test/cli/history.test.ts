/** `convengine history`: usage errors, and an unreachable Temporal named by its address. */
import { runConvengine } from '../support/run-cli';

describe('convengine history', () => {
  it.each([
    [['turn-x-1', '--bogus'], 'history: unexpected argument(s): --bogus'],
    [['turn-x-1', '--address'], '--address needs a value'],
    [['turn-x-1', '--run'], '--run needs a value'],
    [
      ['turn-x-1', '--address', 'nonsense:::'],
      '--address must be host:port with a port from 1 to 65535, e.g. localhost:7233, not "nonsense:::"',
    ],
    [
      ['turn-x-1', '--address', '127.0.0.1:99999'],
      '--address must be host:port with a port from 1 to 65535, e.g. localhost:7233, not "127.0.0.1:99999"',
    ],
    [
      ['turn-x-1', '--address', '127.0.0.1:0'],
      '--address must be host:port with a port from 1 to 65535, e.g. localhost:7233, not "127.0.0.1:0"',
    ],
  ])('history %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['history', ...args], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('names the address it cannot reach', async () => {
    const run = await runConvengine(['history', 'turn-x-1', '--address', '127.0.0.1:1'], {}, 60_000);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(
      'cannot read the history of turn-x-1: cannot reach Temporal at 127.0.0.1:1 (plaintext): ' +
        'Failed to connect before the deadline'
    );
  });
});
