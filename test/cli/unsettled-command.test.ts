/**
 * A command whose promise never settles, with nothing left running, used to end the process with exit code 0 and no
 * word (Node exits when its event loop drains): the dispatcher's guard (cli/unsettled.ts) now names the command on
 * stderr and exits 1, as a failure. The command is a test's own, preloaded into the real bin/convengine.js.
 */
import { join } from 'node:path';
import { runConvengine } from '../support/run-cli';

const PRELOAD = `--require tsx/cjs --require ${join(__dirname, 'fixtures', 'never-settling-command.ts')}`;

describe('a command that never finishes', () => {
  it('exits 1 and says which command stopped without finishing', async () => {
    const run = await runConvengine(['never-settles'], { NODE_OPTIONS: PRELOAD });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^convengine never-settles: stopped without finishing: .*exit code 1\n$/);
  });

  it('leaves a command that finishes as it was: its own exit code, nothing more said', async () => {
    const run = await runConvengine(['never-settles', '--help'], { NODE_OPTIONS: PRELOAD });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('Usage: convengine never-settles');
  });
});
