import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const BIN = join(__dirname, '..', '..', 'bin', 'convengine.js');

/** Runs `node bin/convengine.js <args>` from the TypeScript sources with the given extra environment. */
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
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      }
    );
  });
}
