import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The exit code runConvengine reports for a run it killed at its time limit. */
export const KILLED_AT_TIMEOUT = 124;

const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');

/**
 * Runs `node bin/convengine.js <args>` from the TypeScript sources with the given extra environment. A run killed at
 * `timeoutMs` ends with code 124 (as timeout(1) does) and says so on stderr, so a test's failure reads as the kill it
 * was, not as the command's own exit 1 with nothing written.
 */
export function runConvengine(
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60_000
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, CONVENGINE_USE_SOURCES: '1', ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        if (error?.killed) {
          const note = `[runConvengine] killed by ${error.signal ?? 'a signal'} after ${timeoutMs} ms\n`;
          resolve({ code: KILLED_AT_TIMEOUT, stdout, stderr: `${stderr}${note}` });
          return;
        }
        // Past maxBuffer Node kills the child too, and says so only in this code: the output is cut there.
        if (error?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          resolve({ code: 1, stdout, stderr: `${stderr}[runConvengine] killed: its output passed maxBuffer\n` });
          return;
        }
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      }
    );
  });
}

export interface RunningCli {
  /** Its exit code, and all it wrote, once it has ended. */
  done: Promise<CliRun>;
  /** What it has written to stderr so far. */
  stderr(): string;
  kill(signal: NodeJS.Signals): boolean;
}

/** Starts `node bin/convengine.js <args>` as runConvengine does, for a test that signals it while it runs. */
export function startConvengine(args: string[], env: Record<string, string | undefined>): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, CONVENGINE_USE_SOURCES: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliRun>((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }))
  );
  return { done, stderr: () => stderr, kill: (signal) => child.kill(signal) };
}
