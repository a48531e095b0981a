/** Pretty log lines on a terminal are coloured unless NO_COLOR is set (no-color.org), as `convengine start` writes them. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const LOG_ONE_LINE =
  "require('./observability/logger').createLogger({ level: 'info', format: 'pretty', name: 'cli' }).info('hello')";

/** What one pretty log line looks like on a terminal: `script` gives the process a pseudo-terminal as its stdout. */
function onTerminal(noColor: string | undefined): string {
  const command = `${process.execPath} -r tsx/cjs -e "${LOG_ONE_LINE}"`;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: noColor };
  if (noColor === undefined) delete env['NO_COLOR'];
  return execFileSync('script', ['-qec', command, '/dev/null'], { cwd: ROOT, env, encoding: 'utf8' });
}

const ANSI = '\u001b[';

describe('pretty log lines on a terminal', () => {
  it('are coloured without NO_COLOR, or with it empty', () => {
    expect(onTerminal(undefined)).toContain(ANSI);
    expect(onTerminal('')).toContain(ANSI);
  });

  it('have no colour codes when NO_COLOR is set to anything', () => {
    const line = onTerminal('1');
    expect(line).toContain('hello');
    expect(line).not.toContain(ANSI);
  });
});
