import { EnvError, requireDatabaseUrl } from '../config/env';
import type { CliIo } from './command';

/** DATABASE_URL for a command, or null once the reason it is unusable is printed (the command exits 2). */
export function commandDatabaseUrl(io: CliIo): string | null {
  try {
    return requireDatabaseUrl();
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    io.err(err.message);
    return null;
  }
}
