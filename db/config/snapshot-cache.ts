import { EngineError, ErrorType } from '../../core/errors';
import type { ConfigSnapshot } from '../../core/config/types';
import type { Database } from '../pool';
import { configVersionOf, snapshotOf } from './load';
import { readStoredSnapshot } from './snapshots';

/**
 * A store's snapshots by version, for get(version) (a turn pinned to one): the `size` most recently served or
 * asked for kept in memory; any other is read from ce_config_snapshot, where every served snapshot is persisted,
 * so any worker can serve a version another one served.
 */
export class SnapshotCache {
  private readonly recent = new Map<string, ConfigSnapshot>();

  constructor(
    private readonly db: Database,
    private readonly size: number
  ) {}

  async get(version: string): Promise<ConfigSnapshot> {
    const cached = this.recent.get(version);
    if (cached) {
      this.remember(cached);
      return cached;
    }
    const rows = await readStoredSnapshot(this.db, version);
    if (!rows) {
      throw new EngineError(ErrorType.ConfigVersionUnavailable, `config version ${version} is not available`, {
        details: { version },
      });
    }
    if (configVersionOf(rows) !== version) {
      throw new EngineError(
        ErrorType.ConfigVersionUnavailable,
        `stored config version ${version} does not hash to its version; refusing to use it`,
        { details: { version } }
      );
    }
    const snapshot = snapshotOf(rows);
    this.remember(snapshot);
    return snapshot;
  }

  /** Keeps `snapshot` as the most recently used, dropping the least recently used beyond `size`. */
  remember(snapshot: ConfigSnapshot): void {
    this.recent.delete(snapshot.version);
    this.recent.set(snapshot.version, snapshot);
    while (this.recent.size > this.size) {
      const oldest = this.recent.keys().next().value as string;
      this.recent.delete(oldest);
    }
  }
}
