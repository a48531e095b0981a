import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Per-user cache outside the checkout, shared by every clone on a machine (the Temporal CLI build,
 * cached workflow bundles): `$CONVENGINE_CACHE_DIR`, else `$XDG_CACHE_HOME/convengine`, else
 * `~/.cache/convengine`.
 */
export function convengineCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env['CONVENGINE_CACHE_DIR']) return env['CONVENGINE_CACHE_DIR'];
  return join(env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'convengine');
}
