/**
 * `convengine devserver` refuses an option without its value (`--persist` alone once wrote a file named "true"), a
 * blank one (`--port ""` listened on a random port, `--namespace ""` served a namespace no client can name) and a
 * port out of range, each as every command's usage error: the reason, then the synopsis.
 */
import { runConvengine } from '../support/run-cli';

describe('convengine devserver usage errors', () => {
  it.each([
    [['--persist'], '--persist needs a value'],
    [['--host', '--port', '0'], '--host needs a value'],
    [['--bogus'], 'devserver: unexpected argument(s): --bogus'],
    [['extra'], 'devserver: unexpected argument(s): extra'],
    [['--port', ''], '--port expects a number from 0 to 65535'],
    [['--port', '99999'], '--port expects a number from 0 to 65535'],
    [['--port', '0x10'], '--port expects a number from 0 to 65535'],
    [['--namespace', ''], '--namespace needs a value'],
    [['--namespace= '], '--namespace needs a value'],
    [['--host', ''], '--host needs a value'],
  ])('devserver %j exits 2 with "%s" and the synopsis', async (args, message) => {
    const run = await runConvengine(['devserver', ...args], {}, 30_000);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    const [first, second] = run.stderr.split('\n');
    expect(first).toBe(message);
    expect(second).toMatch(/^Usage: convengine devserver /);
  });
});
