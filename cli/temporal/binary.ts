import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { convengineCacheDir } from '../../config/cache-dir';

export { convengineCacheDir };

/**
 * The pinned Temporal CLI (decision P6): the real server (SQLite persistence) and the real Web UI in
 * one binary, built from its Go module. v1.5.1 is the newest tag `go install …@version` accepts;
 * later tags carry `replace` directives for their nested `cliext` module, which `go install` refuses.
 */
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
/** What `temporal --version` of that build reports (go install leaves the CLI's own version as 0.0.0-DEV). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
export const TEMPORAL_UI_VERSION = '2.42.1';

/** The folder the pinned version is installed into (GOBIN of `go install`). */
export function temporalCliDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(convengineCacheDir(env), 'temporal', TEMPORAL_CLI_VERSION);
}

export function temporalCliPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(temporalCliDir(env), 'temporal');
}

/**
 * The installed binary when it is there and reports the pinned server version, else null. A
 * half-written or foreign file at that path counts as not installed.
 */
export function installedTemporalCli(env: NodeJS.ProcessEnv = process.env): string | null {
  const path = temporalCliPath(env);
  if (!existsSync(path)) return null;
  try {
    const version = execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    return version.includes(`Server ${TEMPORAL_SERVER_VERSION}`) ? path : null;
  } catch {
    return null;
  }
}
