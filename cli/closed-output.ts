/**
 * A reader that goes away (`convengine … | head -1`) makes the next write to stdout fail with EPIPE. Node ignores
 * SIGPIPE, so that error went unhandled: a stack trace and exit 1, even in the middle of starting a stack. Here it
 * ends a command as SIGPIPE ends any other program in a pipeline: quietly, with the exit code a shell reports for it.
 * A command that must clean up first (children to stop) or must not stop at all (a server) says so instead.
 */

/** 128 + SIGPIPE (13): what a shell reports for a writer its reader left; `set -o pipefail` sees it as for any tool. */
export const STDOUT_CLOSED_EXIT = 141;

let stdoutClosed = false;
let stderrClosed = false;
let reaction: () => void = () => process.exit(STDOUT_CLOSED_EXIT);

/** A server keeps serving when its stdout goes (a log reader restarting must not take turns down); output is dropped. */
export const keepServing = (): void => undefined;

/**
 * What the running command does once its stdout's reader has gone, instead of ending at once with STDOUT_CLOSED_EXIT:
 * `keepServing`, or a clean stop. Already gone: it is done now.
 */
export function whenStdoutCloses(react: () => void): void {
  reaction = react;
  if (stdoutClosed) react();
}

/** Writes a line unless that stream's reader has gone: nothing can reach it any more. */
export function writeLine(stream: 'stdout' | 'stderr', line: string): void {
  if (stream === 'stdout' ? stdoutClosed : stderrClosed) return;
  process[stream].write(`${line}\n`);
}

const isClosedPipe = (err: NodeJS.ErrnoException): boolean =>
  err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED';

let watching = false;

/** Handles a reader of stdout or stderr going away, for the rest of the process (once; later calls do nothing). */
export function watchClosedOutput(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (!isClosedPipe(err)) throw err;
    if (stdoutClosed) return;
    stdoutClosed = true;
    reaction();
  });
  // Nobody reads what is said there any more; the command goes on (its stdout, or its exit code, may still be read).
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (!isClosedPipe(err)) throw err;
    stderrClosed = true;
  });
}
