/** `convengine sre`: usage errors, and an unreachable Temporal named by its address. */
import { addressRefusals } from '../support/address-refusals';
import { runConvengine } from '../support/run-cli';

describe('convengine sre', () => {
  it.each([
    [['list', '--bogus'], 'sre: unexpected argument(s): --bogus'],
    [['list', '--address'], '--address needs a value'],
    [['retry', '--workflow-id'], '--workflow-id needs a value'],
    [['list', '--json=1'], '--json takes no value'],
    [[], 'sre needs a command: list, approvals, retry, skip, fail, mark-done'],
    [['frobnicate'], 'sre: unknown command "frobnicate" (list, approvals, retry, skip, fail, mark-done)'],
    [['list', 'extra'], 'sre: unexpected argument(s): extra'],
    ...addressRefusals(['list']),
  ])('sre %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['sre', ...args], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 30_000);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
  });

  it('--help names every option it takes, --namespace and --address among them', async () => {
    const run = await runConvengine(['sre', '--help'], {}, 30_000);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('--namespace ns');
    expect(run.stdout).toContain('--address host:port');
  });

  it('names the address it cannot reach, for list and for a decision', async () => {
    const [list, retry] = await Promise.all([
      runConvengine(['sre', 'list', '--address', '127.0.0.1:1'], {}, 60_000),
      runConvengine(['sre', 'retry', '--workflow-id', 'turn-x-1'], { TEMPORAL_ADDRESS: '127.0.0.1:1' }, 60_000),
    ]);
    const why = 'cannot reach Temporal at 127.0.0.1:1 (plaintext): Failed to connect before the deadline';
    expect(list).toMatchObject({ code: 1, stderr: `sre list: ${why}\n` });
    expect(retry).toMatchObject({ code: 1, stderr: `sre retry: ${why}\n` });
  });
});
