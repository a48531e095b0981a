/** `convengine history`: usage errors, and an unreachable Temporal named by its address. */
import { addressRefusals } from '../support/address-refusals';
import { runConvengine } from '../support/run-cli';

describe('convengine history', () => {
  it.each([
    [['turn-x-1', '--bogus'], 'history: unexpected argument(s): --bogus'],
    [['turn-x-1', '--address'], '--address needs a value'],
    [['turn-x-1', '--run'], '--run needs a value'],
    ...addressRefusals(['turn-x-1']),
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
