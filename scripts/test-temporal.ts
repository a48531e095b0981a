import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { installedTemporalCli } from '../cli/temporal/binary';
import { startTemporalCli } from '../cli/temporal/server';

/**
 * `npm run test:temporal [-- <jest args>]`: starts the real Temporal server (in memory, with the
 * Web UI), runs jest.temporal.config.js against it, and stops it. Exits with Jest's code.
 */
async function main(): Promise<number> {
  const binary = installedTemporalCli();
  if (!binary) {
    console.error('test:temporal needs the Temporal CLI: run `npm run temporal:install` first (Go required)');
    return 1;
  }
  const server = await startTemporalCli({ binary, ui: true });
  console.log(`real Temporal server at ${server.address}, Web UI ${server.uiUrl}`);
  const root = join(__dirname, '..');
  const jest = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
      '-c',
      join(root, 'jest.temporal.config.js'),
      ...process.argv.slice(2),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: server.address,
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_UI_URL: server.uiUrl ?? '',
      },
    }
  );
  // Ctrl-C reaches Jest through the terminal; a SIGTERM to this script is passed on.
  const forward = (signal: NodeJS.Signals) => jest.kill(signal);
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', forward);
  const code = await new Promise<number>((resolve) => jest.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  await server.stop();
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  }
);
