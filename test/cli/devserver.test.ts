/** `convengine devserver` refuses an option without its value (`--persist` alone once wrote a file named "true"). */
import { runConvengine } from '../support/run-cli';

describe('convengine devserver usage errors', () => {
  it.each([
    [['--persist'], '--persist needs a value'],
    [['--host', '--port', '0'], '--host needs a value'],
    [['--bogus'], 'Unknown option --bogus'],
  ])('devserver %j exits 2 with "%s"', async (args, message) => {
    const run = await runConvengine(['devserver', ...args], {}, 30_000);
    expect(run).toMatchObject({ code: 2, stderr: `${message}\n` });
  });
});
