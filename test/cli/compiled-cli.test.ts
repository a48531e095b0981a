import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The launcher's compile cache (plain JS, next to bin/convengine.js): what `npm start` runs in a checkout.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const launcher = require('../../bin/compiled-cli') as {
  compiledCliEntry(root?: string): string;
  sourceStamp(root?: string): { stamp: string };
};

const run = promisify(execFile);
const REPO = join(__dirname, '..', '..');

/** A checkout in miniature: a CLI entry that reads a migration next to its own module, and a tsconfig. */
function miniCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), 'ce-compiled-cli-'));
  mkdirSync(join(root, 'cli'));
  mkdirSync(join(root, 'db', 'migrations'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true } }));
  writeFileSync(join(root, 'db', 'migrations', '0001_first.sql'), 'select 1;\n');
  writeMain(root, 'first');
  return root;
}

function writeMain(root: string, label: string): void {
  const file = join(root, 'cli', 'main.ts');
  writeFileSync(
    file,
    [
      "import { readFileSync } from 'node:fs';",
      "import { join } from 'node:path';",
      'type Label = string;',
      `const label: Label = '${label}';`,
      'export function runCli(): string {',
      "  return `${label}:${readFileSync(join(__dirname, '..', 'db', 'migrations', '0001_first.sql'), 'utf8').trim()}`;",
      '}',
    ].join('\n')
  );
  // Distinct modification times even when two writes land in the same millisecond.
  const stamp = Date.now() / 1000 + Math.random();
  utimesSync(file, stamp, stamp);
}

const load = (entry: string) => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(entry) as { runCli(): string }).runCli();
};

const builds = (root: string) => readdirSync(join(root, 'node_modules', '.cache', 'convengine', 'cli'));

describe('the compiled CLI cache (bin/compiled-cli.js)', () => {
  let root: string;
  beforeEach(() => (root = miniCheckout()));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('compiles the TypeScript sources with their layout, so assets next to a module are found', () => {
    const entry = launcher.compiledCliEntry(root);
    expect(entry).toBe(
      join(root, 'node_modules', '.cache', 'convengine', 'cli', launcher.sourceStamp(root).stamp, 'cli', 'main.js')
    );
    expect(load(entry)).toBe('first:select 1;');
  });

  it('reuses a build while the sources are unchanged, and rebuilds when one changes', () => {
    const entry = launcher.compiledCliEntry(root);
    const builtAt = statSync(entry).mtimeMs;
    expect(launcher.compiledCliEntry(root)).toBe(entry);
    expect(statSync(entry).mtimeMs).toBe(builtAt);

    writeMain(root, 'second');
    const rebuilt = launcher.compiledCliEntry(root);
    expect(rebuilt).not.toBe(entry);
    expect(load(rebuilt)).toBe('second:select 1;');
  });

  it('keeps the newest three builds', () => {
    for (const label of ['a', 'b', 'c', 'd', 'e']) {
      writeMain(root, label);
      launcher.compiledCliEntry(root);
    }
    expect(builds(root)).toHaveLength(3);
    expect(builds(root)).toContain(launcher.sourceStamp(root).stamp);
  });

  it('gives concurrent first starts one complete build and leaves no temporary folder', async () => {
    const script = `console.log(require(${JSON.stringify(join(REPO, 'bin', 'compiled-cli.js'))}).compiledCliEntry(${JSON.stringify(root)}))`;
    const starts = await Promise.all([1, 2, 3].map(() => run(process.execPath, ['-e', script])));
    const entries = new Set(starts.map((s) => s.stdout.trim()));
    expect(entries.size).toBe(1);
    expect(builds(root)).toEqual([launcher.sourceStamp(root).stamp]);
    expect(load([...entries][0]!)).toBe('first:select 1;');
  });
});

describe('bin/convengine.js in a checkout', () => {
  it('runs the compiled CLI, not tsx, unless CONVENGINE_USE_SOURCES=1', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env['CONVENGINE_USE_SOURCES'];
    const script = [
      `process.argv = [process.argv[0], 'convengine', '--help'];`,
      `require(${JSON.stringify(join(REPO, 'bin', 'convengine.js'))});`,
      `process.on('exit', () => console.error('tsx loaded:', Object.keys(require.cache).some((m) => m.includes('/node_modules/tsx/'))));`,
    ].join('\n');
    const help = await run(process.execPath, ['-e', script], { env, cwd: REPO, timeout: 120_000 });
    expect(help.stdout).toContain('Usage: convengine <command>');
    expect(help.stderr).toContain('tsx loaded: false');
  }, 180_000);
});
