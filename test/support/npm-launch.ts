import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface NpmLaunch {
  /** The launcher: npm, or a shell. */
  npm: ChildProcess;
  output: () => string;
  /** The launcher's own exit. */
  exited: Promise<number | null>;
}

/**
 * `<command> <args>` in the checkout (npm by default: `npm exec --no -- convengine …` is what `npx convengine …` runs),
 * from the sources, its output collected; resolved once the output matches `ready`.
 */
export async function launch(
  args: string[],
  options: { ready: RegExp; command?: string; env?: NodeJS.ProcessEnv }
): Promise<NpmLaunch> {
  const { ready, command = 'npm', env = process.env } = options;
  const npm = spawn(command, args, {
    cwd: ROOT,
    env: { ...env, CONVENGINE_USE_SOURCES: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  npm.stdout.on('data', collect);
  npm.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', resolve));
  for (let i = 0; i < 1_800 && !ready.test(output); i++) {
    // A launcher that started it in the background exits 0 at once; one that failed, otherwise.
    if (npm.exitCode !== null && npm.exitCode !== 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!ready.test(output)) throw new Error(`${command} ${args.join(' ')} did not come up:\n${output}`);
  return { npm, output: () => output, exited };
}

/** The pids of every process below `pid` (its children, theirs, …), read from ps now. */
export function descendantsOf(pid: number): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' });
  const pairs = ps
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  for (let parents = [pid]; parents.length > 0;) {
    parents = pairs.filter(([, ppid]) => parents.includes(ppid)).map(([child]) => child);
    found.push(...parents);
  }
  return found;
}
