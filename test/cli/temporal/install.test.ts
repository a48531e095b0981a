import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  installedTemporalCli,
  temporalCliDir,
  temporalCliPath,
  TEMPORAL_CLI_VERSION,
} from '../../../cli/temporal/binary';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'temporal-install.ts');
const TSX = join(__dirname, '..', '..', '..', 'node_modules', 'tsx', 'dist', 'cli.mjs');

function install(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSX, SCRIPT], { env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })
    );
  });
}

describe('npm run temporal:install', () => {
  it('without Go says so in one line and exits 1', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ce-cache-'));
    // A PATH with node but no go.
    const run = await install({ PATH: dirname(process.execPath), HOME: cache, CONVENGINE_CACHE_DIR: cache });
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^temporal:install needs Go .* dev server/)]);
    expect(installedTemporalCli({ CONVENGINE_CACHE_DIR: cache })).toBeNull();
  });

  it("removes the build folders of interrupted installs whose process is gone, and keeps a running one's", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ce-cache-'));
    const parent = dirname(temporalCliDir({ CONVENGINE_CACHE_DIR: cache }));
    // Above Linux's highest pid (pid_max is at most 2^22): no process has it.
    const stale = `.partial-${TEMPORAL_CLI_VERSION}-4194305`;
    const running = `.partial-${TEMPORAL_CLI_VERSION}-${process.pid}`;
    for (const name of [stale, running]) mkdirSync(join(parent, name), { recursive: true });
    await install({ PATH: dirname(process.execPath), HOME: cache, CONVENGINE_CACHE_DIR: cache });
    expect(readdirSync(parent)).toEqual([running]);
  });

  it('does nothing when the pinned version is already in the cache', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ce-cache-'));
    const binary = temporalCliPath({ CONVENGINE_CACHE_DIR: cache });
    mkdirSync(dirname(binary), { recursive: true });
    // Stands in for the build: answers --version as the pinned CLI does.
    writeFileSync(binary, '#!/bin/sh\necho "temporal version 0.0.0-DEV (Server 1.29.1, UI 2.42.1)"\n');
    chmodSync(binary, 0o755);
    const run = await install({ PATH: dirname(process.execPath), HOME: cache, CONVENGINE_CACHE_DIR: cache });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Temporal CLI ${TEMPORAL_CLI_VERSION} (server 1.29.1, UI 2.42.1) already installed`);
  });

  it('keeps the binary in a per-user cache outside the checkout, keyed by version', () => {
    expect(temporalCliPath({ XDG_CACHE_HOME: '/x/cache' })).toBe(
      `/x/cache/convengine/temporal/${TEMPORAL_CLI_VERSION}/temporal`
    );
    expect(temporalCliPath({ HOME: '/home/u' })).toMatch(/\/\.cache\/convengine\/temporal\/v1\.5\.1\/temporal$/);
    // A file that does not report the pinned server is not an installation.
    const cache = mkdtempSync(join(tmpdir(), 'ce-cache-'));
    const binary = temporalCliPath({ CONVENGINE_CACHE_DIR: cache });
    mkdirSync(dirname(binary), { recursive: true });
    writeFileSync(binary, '#!/bin/sh\necho "temporal version 1.0.0 (Server 1.20.0, UI 2.10.0)"\n');
    chmodSync(binary, 0o755);
    expect(installedTemporalCli({ CONVENGINE_CACHE_DIR: cache })).toBeNull();
  });
});
