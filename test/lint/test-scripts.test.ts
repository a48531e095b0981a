import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The test files `npm run <script> -- <args> --listTests` would run, relative to the root. */
function listed(script: string, ...args: string[]): string[] {
  const out = execFileSync('npm', ['run', '-s', script, '--', ...args, '--listTests'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.endsWith('.test.ts'))
    .map((line) => line.slice(ROOT.length + 1))
    .sort();
}

// One file of each layer, as a contributor runs it: `--selectProjects unit <path>` read the path as a project name.
const ONE_FILE: [string, string][] = [
  ['test:unit', 'test/core/json.test.ts'],
  ['test:db', 'test/db/migrate.test.ts'],
  ['test:workflow', 'test/replay/replay.test.ts'],
  ['test:e2e', 'test/observability/logger.test.ts'],
  ['test:reliability', 'test/reliability/held-turn.test.ts'],
];

describe('the package.json test scripts', () => {
  it.each(ONE_FILE)('npm run %s -- %s runs that file alone', (script, file) => {
    expect(listed(script, file)).toEqual([file]);
  });

  it('npm run test:reliability runs test/reliability alone', () => {
    const files = listed('test:reliability');
    expect(files.length).toBeGreaterThan(1);
    expect(files.filter((f) => !f.startsWith('test/reliability/'))).toEqual([]);
  });

  it('npm run test:unit -- <a file of another layer> runs nothing', () => {
    expect(listed('test:unit', 'test/replay/replay.test.ts')).toEqual([]);
  });
});
