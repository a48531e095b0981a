import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgresError, type PostgresBinaries } from './binaries';
import type { LaunchEvents } from './events';
import type { EmbeddedLayout } from './layout';
import { giveTo, type ServerUser } from './os-user';

function run(command: string, args: string[], user: ServerUser): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...user,
      stdio: ['ignore', 'pipe', 'pipe'],
      // eslint-disable-next-line no-restricted-properties -- initdb inherits ours, its messages in English
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${signal ?? `exit ${code}`}: ${output.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/**
 * initdb on first start. It writes into a scratch directory that is renamed into place only when
 * complete, so a start killed half-way leaves no half-made cluster that a later start would trust.
 * Authentication is SCRAM for every connection (initdb's `--auth`), never trust; the superuser's
 * password is the per-home secret.
 */
export async function initialise(
  binaries: PostgresBinaries,
  user: ServerUser,
  layout: EmbeddedLayout,
  password: string,
  superuser: string,
  events: LaunchEvents = {}
): Promise<void> {
  if (existsSync(join(layout.dataDir, 'PG_VERSION'))) return;
  const scratch = `${layout.dataDir}.initdb`;
  const pwfile = join(layout.root, 'initdb.pwfile');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { mode: 0o700 });
  giveTo(user, scratch);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  giveTo(user, pwfile);
  try {
    const initdb = run(
      binaries.initdb,
      [
        `--pgdata=${scratch}`,
        `--username=${superuser}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
        '--no-instructions',
      ],
      user
    );
    events.onSpawn?.();
    await initdb;
  } catch (err) {
    throw new EmbeddedPostgresError(`initdb failed in ${scratch}: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    unlinkSync(pwfile);
  }
  renameSync(scratch, layout.dataDir);
}
