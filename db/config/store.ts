import { isEmptyConfig } from '../../core/config/empty';
import type { ConfigStore } from '../../core/config/store';
import type { ConfigRows, ConfigSnapshot, ConfigViolation } from '../../core/config/types';
import { configInvalidError } from '../../core/config/validate';
import type { Database } from '../pool';
import { configVersionOf, readConfigRevision, readConfigState, snapshotOf } from './load';
import { SnapshotCache } from './snapshot-cache';
import { recordServedSnapshot } from './snapshots';
import { newestValidStored, type StoredCandidate } from './stored-fallback';
import { validateYielding, type ConfigChecks } from './validate-yielding';

/** `settings` and `validation`: what rows are validated against (stored-fallback.ts). */
export interface ConfigStoreOptions extends ConfigChecks {
  /** Minimum time between two revision checks made by current(); default 200 ms. */
  stalenessCheckMs?: number;
  /** Snapshots kept in memory for get(version); default 8. */
  cacheSize?: number;
  /** Clock, for tests. */
  now?: () => number;
  /** Told when rows were refused, with the config served instead (none when nothing is in service yet). */
  onRejected?: (violations: readonly ConfigViolation[], serving: ServedConfig | undefined) => void;
}

/** The config a store serves while it refuses the tables. */
export interface ServedConfig {
  version: string;
  /** True when the store switched to (or started on) a stored snapshot because the tables did not validate. */
  restored: boolean;
}

export interface RefreshResult {
  version: string;
  /** False when the rows hash to the version already in service. */
  changed: boolean;
  warnings: ConfigViolation[];
}

export interface DatabaseValidation {
  version: string;
  violations: ConfigViolation[];
  warnings: ConfigViolation[];
  /** No ce_intent and no ce_response row (core/config/empty.ts): valid, yet every message fails. */
  empty: boolean;
}

/** The ConfigStore activities use, plus the operations the admin API and the CLI need. */
export interface DatabaseConfigStore extends ConfigStore {
  /** Re-reads and validates now; throws CONFIG_INVALID (details.violations) and keeps serving the old snapshot. */
  refresh(): Promise<RefreshResult>;
  /** Validates the tables as they are, without changing what is served. */
  validateDatabase(): Promise<DatabaseValidation>;
  /** Violations of the newest rows if they were refused, else []. */
  rejectedViolations(): readonly ConfigViolation[];
  /** Warnings of the snapshot in service. */
  warnings(): readonly ConfigViolation[];
  /**
   * A config write committed (the revision trigger's notification, change-listener.ts): checks the revision now, and
   * reloads if it moved, instead of at the first current() past `stalenessCheckMs`; current() waits for that check.
   * Resolves when it is done. Before the first load it does nothing: that load reads the tables as they are.
   */
  changed(): Promise<void>;
}

/**
 * Versioned, validated config from the ce_* tables. current() costs one integer read at most every
 * `stalenessCheckMs`; a listener (change-listener.ts) has the store check as a config write commits (changed()), so
 * the reload starts then, not when the next turn asks. Rows are re-read only when ce_config_revision moved, and a
 * new snapshot is served only if it validates (never half-applied); refused rows make it serve the newest valid
 * snapshot stored in ce_config_snapshot, the same one in every process. Every served snapshot is persisted there
 * so any worker can serve get(version) for a turn pinned to it.
 */
export function createConfigStore(db: Database, options: ConfigStoreOptions = {}): DatabaseConfigStore {
  return new DbConfigStore(db, options);
}

class DbConfigStore implements DatabaseConfigStore {
  private snapshot: ConfigSnapshot | undefined;
  private snapshotWarnings: ConfigViolation[] = [];
  private rejected: ConfigViolation[] = [];
  /** The snapshot in service came from ce_config_snapshot because the tables were refused, not from the tables. */
  private restored = false;
  private revision = -1;
  private lastCheckAt = Number.NEGATIVE_INFINITY;
  private inflightCheck: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pinned: SnapshotCache;
  private readonly checkMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly options: ConfigStoreOptions
  ) {
    this.checkMs = options.stalenessCheckMs ?? 200;
    this.pinned = new SnapshotCache(db, Math.max(1, options.cacheSize ?? 8));
    this.now = options.now ?? Date.now;
  }

  async current(): Promise<ConfigSnapshot> {
    if (!this.snapshot) {
      await this.exclusive(() => (this.snapshot ? Promise.resolve() : this.loadFirst()));
    } else if (this.inflightCheck || this.now() - this.lastCheckAt >= this.checkMs) {
      // A check under way may be the one a committed write asked for (changed()): the turn runs on what it finds.
      await (this.inflightCheck ?? this.checkNow());
    }
    return this.snapshot as ConfigSnapshot;
  }

  changed(): Promise<void> {
    return this.snapshot ? this.checkNow() : Promise.resolve();
  }

  /**
   * A revision check after any under way (exclusive), which current() awaits until it is done: one that began before
   * the write committed may have read the old revision.
   */
  private checkNow(): Promise<void> {
    const check: Promise<void> = this.exclusive(() => this.checkForChange()).finally(() => {
      if (this.inflightCheck === check) this.inflightCheck = null;
    });
    this.inflightCheck = check;
    return check;
  }

  async get(version: string): Promise<ConfigSnapshot> {
    if (this.snapshot?.version === version) return this.snapshot;
    return this.pinned.get(version);
  }

  refresh(): Promise<RefreshResult> {
    return this.exclusive(async () => {
      const { revision, rows } = await readConfigState(this.db);
      this.revision = revision;
      this.lastCheckAt = this.now();
      const version = configVersionOf(rows);
      if (this.snapshot?.version === version) {
        // The tables hold the version served: it is served from them now, not restored from a stored snapshot.
        this.rejected = [];
        this.restored = false;
        return { version, changed: false, warnings: [...this.snapshotWarnings] };
      }
      const result = await validateYielding(rows, this.options);
      if (result.violations.length > 0) {
        await this.refuse(result.violations, revision);
        throw configInvalidError(result.violations, `config version ${version} was refused`);
      }
      await this.serve(rows, result.warnings, revision);
      return { version, changed: true, warnings: result.warnings };
    });
  }

  async validateDatabase(): Promise<DatabaseValidation> {
    const { rows } = await readConfigState(this.db);
    const result = await validateYielding(rows, this.options);
    return { version: configVersionOf(rows), ...result, empty: isEmptyConfig(rows) };
  }

  rejectedViolations(): readonly ConfigViolation[] {
    return this.rejected;
  }

  warnings(): readonly ConfigViolation[] {
    return this.snapshotWarnings;
  }

  /** Runs reloads one at a time, so two can never race to swap the snapshot. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The first snapshot: the tables as they are, or, when they do not validate, the newest stored snapshot that
   * does (as a running process falls back to it), so one bad edit cannot stop every process that restarts. Only
   * with no valid snapshot at all does it throw.
   */
  private async loadFirst(): Promise<void> {
    const { revision, rows } = await readConfigState(this.db);
    this.revision = revision;
    this.lastCheckAt = this.now();
    const result = await validateYielding(rows, this.options);
    if (result.violations.length === 0) return this.serve(rows, result.warnings, revision);
    const fallback = await this.newestValidStored();
    if (!fallback) {
      this.rejected = result.violations;
      throw configInvalidError(result.violations);
    }
    await this.serveStored(fallback, revision);
    this.reject(result.violations);
  }

  /**
   * The tables at `revision` do not validate: serve the newest stored snapshot that does (`config apply`, `seed`
   * and every store record theirs), so every process converges on one version, the last valid config the
   * database has seen, not whichever one each process last read. When none can be read or none validates, the
   * snapshot in service stays.
   */
  private async refuse(violations: ConfigViolation[], revision: number): Promise<void> {
    const fallback = await this.newestValidStored().catch(() => null);
    if (fallback && fallback.snapshot.version !== this.snapshot?.version) await this.serveStored(fallback, revision);
    this.reject(violations);
  }

  /** Recorded at the refused revision: this store serves it from now on, so it is the newest in service. */
  private async serveStored(stored: StoredCandidate, revision: number): Promise<void> {
    await this.serveSnapshot(stored.snapshot, stored.warnings, revision);
    this.restored = true;
  }

  private newestValidStored(): Promise<StoredCandidate | null> {
    return newestValidStored(this.db, this.options);
  }

  private async checkForChange(): Promise<void> {
    this.lastCheckAt = this.now();
    let revision: number;
    try {
      revision = await readConfigRevision(this.db);
    } catch {
      return; // Database unreachable: keep serving the snapshot we have; the next check retries.
    }
    if (revision === this.revision) return;
    let state;
    try {
      state = await readConfigState(this.db);
    } catch {
      return;
    }
    this.revision = state.revision;
    const version = configVersionOf(state.rows);
    if (version === this.snapshot?.version) {
      this.rejected = [];
      this.restored = false;
      return;
    }
    const result = await validateYielding(state.rows, this.options);
    if (result.violations.length > 0) await this.refuse(result.violations, state.revision);
    else await this.serve(state.rows, result.warnings, state.revision);
  }

  private reject(violations: ConfigViolation[]): void {
    this.rejected = violations;
    const serving = this.snapshot && { version: this.snapshot.version, restored: this.restored };
    this.options.onRejected?.(violations, serving);
  }

  /**
   * Persists the snapshot (so other workers can get() it) and that it is in service from `revision` (so a
   * restart on refused tables falls back to it), then swaps it in.
   */
  private serve(rows: ConfigRows, warnings: ConfigViolation[], revision: number): Promise<void> {
    return this.serveSnapshot(snapshotOf(rows), warnings, revision);
  }

  private async serveSnapshot(snapshot: ConfigSnapshot, warnings: ConfigViolation[], revision: number): Promise<void> {
    await recordServedSnapshot(this.db, snapshot, revision);
    this.snapshot = snapshot;
    this.snapshotWarnings = warnings;
    this.restored = false;
    this.rejected = [];
    this.pinned.remember(snapshot);
  }
}
