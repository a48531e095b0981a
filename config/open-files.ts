import { readFileSync } from 'node:fs';

/**
 * The process's open-files limit (RLIMIT_NOFILE), and what it bounds. Every socket is a file descriptor: each request
 * in flight holds its client's, and so do the database pools, the Temporal connections and the worker's threads. A
 * process out of them fails its accepts with EMFILE, and the Temporal worker's VM then aborts the whole process (libuv:
 * "Failed to initialize uv loop"), leaving `convengine start`'s embedded PostgreSQL running. Node reads no such limit
 * (there is no process.getrlimit); Linux tells it in /proc/self/limits. Node raises its soft limit to the hard one at
 * start, so what this reads is what the process has.
 */

/** Below this many open files a process under load runs out: `start`, `api` and `worker` warn at start. */
export const OPEN_FILES_LOW = 1024;

/** What to raise a low limit to: room for the default cap of messages in flight and the rest of the process. */
export const OPEN_FILES_ADVISED = 4096;

/** MESSAGE_MAX_CONCURRENT's default where the limit cannot be read (not Linux): a quarter of macOS's default, 256. */
export const MESSAGE_MAX_CONCURRENT_FALLBACK = 64;

/** MESSAGE_MAX_CONCURRENT's default never exceeds this: far more turns than a worker answers in a second. */
export const MESSAGE_MAX_CONCURRENT_CEILING = 1024;

/**
 * The soft "Max open files" of a /proc/<pid>/limits text: a number, Infinity for `unlimited`, null when the text has
 * no such line (another system, a format this does not know).
 */
export function parseOpenFilesLimit(limits: string): number | null {
  const soft = /^Max open files\s+(\d+|unlimited)\s/m.exec(limits)?.[1];
  if (soft === undefined) return null;
  return soft === 'unlimited' ? Infinity : Number(soft);
}

/** This process's open-files limit; null where it cannot be read (no /proc: macOS, Windows). */
export function openFilesLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  try {
    return parseOpenFilesLimit(read());
  } catch {
    return null;
  }
}

/**
 * Descriptors an API process keeps for other than its HTTP connections and its database pools: the Temporal
 * connections, the listening sockets, the event loops of the worker's threads (`convengine start`), an embedded dev
 * server's, LLM and tool servers' sockets, logs and bundle files. `convengine start` held 50 idle (its pools' idle
 * connections among them) and 62 through the demo's 21 turns; twice that leaves room.
 */
export const OPEN_FILES_RESERVE = 128;

/**
 * The HTTP connections an API process holds at once when API_MAX_CONNECTIONS is unset (net.Server's maxConnections;
 * one more is closed as it is accepted, rather than the next accept failing with EMFILE): the open-files limit less
 * the `pooled` database connections of the process and OPEN_FILES_RESERVE, and never under a quarter of the limit
 * (a limit that low is warned of at start: lowOpenFilesWarning). Null, no bound, where the limit is unknown or
 * unlimited.
 */
export function connectionCapFor(limit: number | null, pooled: number): number | null {
  if (limit === null || limit === Infinity) return null;
  return Math.max(Math.floor(limit / 4), limit - pooled - OPEN_FILES_RESERVE, 1);
}

/**
 * How many POST /conversation/message requests an API process answers at once when MESSAGE_MAX_CONCURRENT is unset:
 * a quarter of the open-files limit (each holds its client's socket; the rest is for the pools, the worker, the audit
 * streams and idle keep-alive connections), at least 1 and at most MESSAGE_MAX_CONCURRENT_CEILING;
 * MESSAGE_MAX_CONCURRENT_FALLBACK where the limit is unknown.
 */
export function messageConcurrencyFor(limit: number | null): number {
  if (limit === null) return MESSAGE_MAX_CONCURRENT_FALLBACK;
  return Math.max(1, Math.min(MESSAGE_MAX_CONCURRENT_CEILING, Math.floor(limit / 4)));
}

/** The warning a process with a low open-files limit logs at start, saying the number and why; null when it is not low. */
export function lowOpenFilesWarning(limit: number | null): string | null {
  if (limit === null || limit >= OPEN_FILES_LOW) return null;
  return (
    `the open-files limit (ulimit -n) is ${limit}, under ${OPEN_FILES_LOW}: every connection and request in flight ` +
    'holds a file descriptor, and a process that runs out (EMFILE) refuses connections and can abort, its turns ' +
    `cut; raise it to ${OPEN_FILES_ADVISED} or more (ulimit -n, systemd LimitNOFILE=, compose ulimits.nofile, ` +
    'docs/operations.md "File descriptors")'
  );
}
