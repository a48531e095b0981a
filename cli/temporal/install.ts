import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  installedTemporalCli,
  temporalCliDir,
  temporalCliPath,
  TEMPORAL_CLI_MODULE,
  TEMPORAL_CLI_VERSION,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_VERSION,
} from './binary';
import { processAlive } from '../../db/embedded/leftovers';

const PINNED = `Temporal CLI ${TEMPORAL_CLI_VERSION} (server ${TEMPORAL_SERVER_VERSION}, UI ${TEMPORAL_UI_VERSION})`;

function goAvailable(env: NodeJS.ProcessEnv): boolean {
  const probe = spawnSync('go', ['version'], { env, stdio: 'ignore' });
  return probe.error === undefined && probe.status === 0;
}

function goInstall(gobin: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve, reject) => {
    // Go keeps its module and build caches where it always does (GOMODCACHE, GOCACHE), so a second
    // install on this machine, or one for another clone, only links.
    const child = spawn('go', ['install', `${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION}`], {
      env: { ...env, GOBIN: gobin },
      stdio: 'inherit',
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

const PARTIAL_DIR = /^\.partial-.+-(\d+)$/;

/** Build folders (`.partial-<version>-<pid>`) left by an install that was interrupted: those whose process is gone. */
function removeStalePartials(cacheDir: string): void {
  let names: string[];
  try {
    names = readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = PARTIAL_DIR.exec(name)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
}

/**
 * `npm run temporal:install`: builds the pinned Temporal CLI into the per-user cache with
 * `go install`, or does nothing when that version is already there. Returns the exit code.
 * Without Go it says so in one line and returns 1; the embedded dev server stays the default.
 */
export async function installTemporalCli(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env
): Promise<number> {
  removeStalePartials(dirname(temporalCliDir(env)));
  const existing = installedTemporalCli(env);
  if (existing) {
    log(`${PINNED} already installed: ${existing}`);
    return 0;
  }
  if (!goAvailable(env)) {
    log(`temporal:install needs Go (https://go.dev/dl/) to build the ${PINNED}; the embedded dev server still works.`);
    return 1;
  }
  const target = temporalCliPath(env);
  // Build into a private folder and move the binary into place, so an interrupted build never
  // leaves a half-written file where the launcher looks.
  const partial = join(dirname(temporalCliDir(env)), `.partial-${TEMPORAL_CLI_VERSION}-${process.pid}`);
  mkdirSync(partial, { recursive: true });
  const started = Date.now();
  log(`building the ${PINNED} with go install (minutes on a cold Go cache)…`);
  try {
    const code = await goInstall(partial, env);
    if (code !== 0) {
      log(`go install ${TEMPORAL_CLI_MODULE}@${TEMPORAL_CLI_VERSION} failed (exit ${code})`);
      return 1;
    }
    mkdirSync(temporalCliDir(env), { recursive: true });
    renameSync(join(partial, 'temporal'), target);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  if (!installedTemporalCli(env)) {
    log(`${target} does not report server ${TEMPORAL_SERVER_VERSION}`);
    return 1;
  }
  log(`installed ${PINNED} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${target}`);
  return 0;
}
