import type { CliIo } from './command';

/** The exit code of a command that never finished: a failure (1), as its promise rejecting would have been. */
export const UNSETTLED_EXIT = 1;

/**
 * Runs a command, and fails the process if the command never finishes. A command left awaiting a promise that
 * nothing can settle any more (a callback never called, a stream that ends without its event) leaves Node with an
 * empty event loop, and Node then exits 0 without a word: a script took that for success. `beforeExit` fires only
 * then (never while a socket, timer or child still runs), so the guard cuts no command short; it says which command
 * and sets the exit code, which Node exits with once the listener returns.
 */
export async function failIfUnsettled(name: string, io: CliIo, run: () => Promise<number>): Promise<number> {
  const onDrained = (): void => {
    process.off('beforeExit', onDrained);
    io.err(
      `convengine ${name}: stopped without finishing: the command was still waiting when nothing was left that ` +
        `could end its wait (a bug; nothing tells whether its work was done); exit code ${UNSETTLED_EXIT}`
    );
    process.exitCode = UNSETTLED_EXIT;
  };
  process.on('beforeExit', onDrained);
  try {
    return await run();
  } finally {
    process.off('beforeExit', onDrained);
  }
}
