import type { ConfigSnapshot } from './types';

/**
 * Where activities get config. `current()` is the latest validated snapshot (cached; a cheap
 * staleness check decides when to reload). `get(version)` returns exactly the version a turn
 * pinned, even if the tables have changed since.
 */
export interface ConfigStore {
  current(): Promise<ConfigSnapshot>;
  get(version: string): Promise<ConfigSnapshot>;
}
