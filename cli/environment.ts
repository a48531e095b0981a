import { EnvError, loadEnv, requireDatabaseUrl } from '../config/env';
import type { CliIo } from './command';

/**
 * The exit code of a command whose environment is invalid or lacks a variable it needs, as of a usage error: the
 * invocation is wrong and running it again as it is cannot help (1 is a failure that may pass on a retry).
 */
export const INVALID_ENVIRONMENT_EXIT = 2;

/**
 * Runs a command once the whole environment is valid, the same check for every command: migrate shares its
 * environment with the worker and the API (docker-compose), so what would stop them stops it too. Only what is set is
 * checked; a variable a command needs is its own to require. An EnvError the command throws later (a TLS file it
 * cannot read) ends it the same way: the variables' reasons on stderr and INVALID_ENVIRONMENT_EXIT.
 */
export async function runWithValidEnvironment(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    loadEnv();
    return await run();
  } catch (err) {
    printEnvError(io, err);
    return INVALID_ENVIRONMENT_EXIT;
  }
}

/** Prints an EnvError's reasons; any other error is not ours to report and is thrown on. */
function printEnvError(io: CliIo, err: unknown): void {
  if (!(err instanceof EnvError)) throw err;
  io.err(err.message);
}

/** DATABASE_URL for a command, or null once the reason it is unusable is printed (the command exits INVALID_ENVIRONMENT_EXIT). */
export function commandDatabaseUrl(io: CliIo): string | null {
  try {
    return requireDatabaseUrl();
  } catch (err) {
    printEnvError(io, err);
    return null;
  }
}
