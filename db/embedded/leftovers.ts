import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgresError } from './binaries';
import type { EmbeddedLayout } from './layout';

export interface PostmasterPid {
  pid: number;
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
  return { pid, port: Number(lines[3]), status: (lines[7] ?? '').trim() };
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

const runningServer = (pid: number): boolean => processAlive(pid) && /postgres/.test(commandOf(pid));

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
 * every committed transaction; a postmaster.pid whose pid now belongs to another program is
 * removed so PostgreSQL does not mistake it for a live server. A start that is still running on
 * the same --home is left alone, and this one refuses.
 */
export async function clearLeftovers(layout: EmbeddedLayout): Promise<void> {
  const server = readPostmasterPid(layout.dataDir);
  const owner = readOwner(layout);
  if (server && runningServer(server.pid)) {
    if (owner !== null && processAlive(owner)) {
      throw new EmbeddedPostgresError(
        `A convengine process (pid ${owner}) is running on ${layout.home} with its database on port ${server.port}; stop it or use another --home.`
      );
    }
    process.kill(server.pid, 'SIGINT');
    if (!(await untilGone(server.pid, 30_000))) process.kill(server.pid, 'SIGQUIT');
    await untilGone(server.pid, 10_000);
  } else if (server) {
    rmSync(join(layout.dataDir, 'postmaster.pid'), { force: true });
  }
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
