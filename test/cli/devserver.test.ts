/**
 * `convengine devserver` refuses an option without its value (`--persist` alone once wrote a file named "true"), a
 * blank one (`--port ""` listened on a random port, `--namespace ""` served a namespace no client can name) and a
 * port out of range, each as every command's usage error: the reason, then the synopsis.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    [['--namespace', 'a', '--namespace', 'b'], '--namespace may be given only once'],
    // --search-attribute is repeatable: the second is read (and refused for its type), not refused as a repeat.
    [
      ['--search-attribute', 'A=Keyword', '--search-attribute', 'B=Bogus'],
      expect.stringMatching(/^--search-attribute expects Name=Type .*; got "B=Bogus"$/),
    ],
  ])('devserver %j exits 2 with "%s" and the synopsis', async (args, message) => {
    const run = await runConvengine(['devserver', ...args], {}, 30_000);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    const [first, second] = run.stderr.split('\n');
    expect(first).toEqual(message);
    expect(second).toMatch(/^Usage: convengine devserver /);
  });
});

describe('convengine devserver --repair-journal', () => {
  it('keeps every record before the first corrupt line, keeps the file as it was beside it, and exits 0', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'repair-journal-'));
    const file = join(directory, 'temporal-devserver.jsonl');
    const good = '{"t":"header","v":1,"namespace":"default"}\n{"t":"sa","attributes":{}}\n';
    writeFileSync(file, `${good}{"t":"event","r":"x","b":"AA\n{"t":"delete","r":"x"}\n`);
    try {
      const run = await runConvengine(['devserver', '--repair-journal', file], {}, 30_000);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(
        `kept the 2 line(s) before line 3, dropped 2 from there on; the file as it was is ${file}.corrupt-`
      );
      expect(readFileSync(file, 'utf8')).toBe(good);
      expect(readdirSync(directory).filter((name) => name.includes('.corrupt-'))).toHaveLength(1);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
