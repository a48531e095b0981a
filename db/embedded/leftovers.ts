import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { EmbeddedPostgresError } from './binaries';
import type { EmbeddedLayout } from './layout';

export interface PostmasterPid {
  pid: number;
  /** The data directory the server that wrote the file serves (line 2). */
  dataDir: string;
  port: number;
  /** "starting", "ready", "stopping" or "standby" (line 8 of postmaster.pid). */
  status: string;
}

/** postmaster.pid: pid, data dir, start time, port, socket dir, listen address, shmem key, status. */
export function readPostmasterPid(dataDir: string): PostmasterPid | null {
  let text: string;
  try {
    text = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, dataDir: lines[1] ?? '', port: Number(lines[3]), status: (lines[7] ?? '').trim() };
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    try {
      return execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  }
}

/** `path` made absolute with its symlinks resolved, or null when it does not exist. */
function realPath(path: string): string | null {
  try {
    return realpathSync(resolve(path));
  } catch {
    return null;
  }
}

/** A process's arguments (NUL-separated in /proc; `ps` splits them at spaces), or null when they cannot be read. */
function argumentsOf(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    try {
      return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' })
        .trim()
        .split(/\s+/);
    } catch {
      return null;
    }
  }
}

/** The directories a process says it serves: its absolute `-D` and its working directory (a postmaster chdirs to its data). */
function servedDirectories(pid: number): string[] {
  const args = argumentsOf(pid) ?? [];
  const at = args.indexOf('-D');
  const given = at >= 0 ? args[at + 1] : args.find((a) => a.startsWith('-D'))?.slice(2);
  const dirs = given !== undefined && isAbsolute(given) ? [given] : [];
  try {
    dirs.push(readlinkSync(`/proc/${pid}/cwd`));
  } catch {
    // Another user's process, or no /proc: its -D alone says.
  }
  return dirs;
}

/**
 * What the live process a postmaster.pid names is to this --home: its PostgreSQL server (the file's data directory,
 * and the process's -D or working directory, are this data directory), another program (the pid was reused), or
 * unknown (a program named postgres whose data directory cannot be read, or that serves this data directory while
 * the file names another one).
 */
function identify(server: PostmasterPid, dataDir: string): 'ours' | 'another' | 'unknown' {
  if (!/postgres/.test(commandOf(server.pid))) return 'another';
  const here = realPath(dataDir);
  const served = servedDirectories(server.pid);
  if (served.length === 0) return 'unknown';
  if (!served.some((dir) => here !== null && realPath(dir) === here)) return 'another';
  return realPath(server.dataDir) === here ? 'ours' : 'unknown';
}

async function untilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return !processAlive(pid);
}

/**
 * What a `kill -9` of an earlier `convengine start` leaves behind: its server still running (it is
 * in its own process group) and a postmaster.pid. That server gets a fast shutdown, which keeps
 * every committed transaction; a postmaster.pid whose pid is gone or now belongs to another program
 * (one named postgres too: another cluster's server) is removed so PostgreSQL does not mistake it
 * for a live server, and that program is left alone. A start that is still running on the same
 * --home is left alone, and this one refuses; so does a start that cannot tell whose the process is.
 */
export async function clearLeftovers(layout: EmbeddedLayout): Promise<void> {
  const server = readPostmasterPid(layout.dataDir);
  if (!server) return;
  const pidFile = join(layout.dataDir, 'postmaster.pid');
  const identity = processAlive(server.pid) ? identify(server, layout.dataDir) : 'another';
  if (identity === 'another') {
    rmSync(pidFile, { force: true });
    return;
  }
  if (identity === 'unknown') {
    throw new EmbeddedPostgresError(
      `${pidFile} names process ${server.pid}, a running PostgreSQL that may serve ${layout.dataDir}; nothing was stopped. ` +
        `Stop that server if it is this --home's, or remove the file if it is not.`
    );
  }
  const owner = readOwner(layout);
  if (owner !== null && processAlive(owner)) {
    throw new EmbeddedPostgresError(
      `A convengine process (pid ${owner}) is running on ${layout.home} with its database on port ${server.port}; stop it or use another --home.`
    );
  }
  process.kill(server.pid, 'SIGINT');
  if (!(await untilGone(server.pid, 30_000))) process.kill(server.pid, 'SIGQUIT');
  await untilGone(server.pid, 10_000);
}

function readOwner(layout: EmbeddedLayout): number | null {
  if (!existsSync(layout.ownerFile)) return null;
  const pid = Number(readFileSync(layout.ownerFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** Marks --home as this process's while its server runs. */
export function claimHome(layout: EmbeddedLayout): void {
  writeFileSync(layout.ownerFile, `${process.pid}\n`);
}

export function releaseHome(layout: EmbeddedLayout): void {
  if (readOwner(layout) === process.pid) rmSync(layout.ownerFile, { force: true });
}
