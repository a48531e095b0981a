import { EnvError, loadEnvFor, requireDatabaseUrl, unknownEnvWarnings, type Env, type EnvNeed } from '../config/env';
import type { CliIo } from './command';

/**
 * The exit code of a command whose environment is invalid or lacks a variable it needs, as of a usage error: the
 * invocation is wrong and running it again as it is cannot help (1 is a failure that may pass on a retry).
 */
export const INVALID_ENVIRONMENT_EXIT = 2;

/**
 * Runs a command once the whole environment is valid, the same check for every command: migrate shares its
 * environment with the worker and the API (docker-compose), so what would stop them stops it too. What is set is
 * checked, and what the command `needs` (`api`, `worker`) in the same error; the command gets that environment, checked
 * once. Any other variable a command needs is its own to require. An EnvError the command throws later (a TLS file it
 * cannot read) ends it the same way: the variables' reasons on stderr and INVALID_ENVIRONMENT_EXIT. A variable under
 * the engine's prefixes that it does not read is warned of first, one line each on stderr (unknownEnvWarnings).
 */
export async function runWithValidEnvironment(
  io: CliIo,
  run: (env: Env) => Promise<number>,
  needs: readonly EnvNeed[] = []
): Promise<number> {
  // Before the check: a misspelt name is often why a variable the command needs reads as unset.
  for (const warning of unknownEnvWarnings()) io.err(warning);
  try {
    return await run(loadEnvFor(needs));
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

/** The environment of `convengine api` and `convengine worker`: a database and Temporal are set. */
export type ServiceEnv = Env & { DATABASE_URL: string; TEMPORAL_ADDRESS: string };

/** What `convengine api` needs set; `convengine worker` needs a model too. */
export const API_NEEDS: readonly EnvNeed[] = ['database', 'temporal'];
export const WORKER_NEEDS: readonly EnvNeed[] = [...API_NEEDS, 'llm'];

/**
 * The environment of `api` or `worker`, as runWithValidEnvironment validated it with their needs (API_NEEDS,
 * WORKER_NEEDS): typed with the database and Temporal it found set, not validated again.
 */
export function serviceEnvironment(env: Env): ServiceEnv {
  const { DATABASE_URL, TEMPORAL_ADDRESS } = env;
  if (DATABASE_URL === undefined || TEMPORAL_ADDRESS === undefined) {
    // A command run without its needs checked (a wiring error), never an operator's: their message is runWithValidEnvironment's.
    throw new Error('serviceEnvironment: DATABASE_URL and TEMPORAL_ADDRESS were not validated as needs');
  }
  return { ...env, DATABASE_URL, TEMPORAL_ADDRESS };
}
