import { desc, eq } from 'drizzle-orm';
import { EngineError, ErrorType } from '../../core/errors';
import type { SettingDefinition } from '../../core/config/setting';
import type { ConfigStore } from '../../core/config/store';
import { formatViolation, type ConfigRows, type ConfigSnapshot, type ConfigViolation } from '../../core/config/types';
import type { Logger } from '../../observability/logger';
import { configInvalidError, validateConfig } from '../../core/config/validate';
import type { ValidationOptions } from '../../core/config/validation/context';
import { retryOnConnectionLoss } from '../connection-loss';
import type { Database } from '../pool';
import { ceConfigSnapshot } from '../schema';
import { configVersionOf, readConfigRevision, readConfigState, snapshotOf } from './load';

/** Stored snapshots tried, newest first, when the tables do not validate at start. */
const STORED_FALLBACK_CANDIDATES = 5;

export interface ConfigStoreOptions {
  /** Minimum time between two revision checks made by current(); default 200 ms. */
  stalenessCheckMs?: number;
  /** Snapshots kept in memory for get(version); default 8. */
  cacheSize?: number;
  /** Declared ce_config settings to validate against (default: every declared setting). */
  settings?: readonly SettingDefinition[];
  /** Clock, for tests. */
  now?: () => number;
  /** Told when newer rows were refused and the previous snapshot stays in service. */
  onRejected?: (violations: readonly ConfigViolation[]) => void;
  /** Checks that need I/O-side parts (the SQL parser for sql_template), as `config apply` runs them. */
  validation?: ValidationOptions;
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
}

/**
 * Versioned, validated config from the ce_* tables. current() costs one integer read at most every
 * `stalenessCheckMs`; rows are re-read only when ce_config_revision moved, and a new snapshot is
 * served only if it validates (never half-applied). Every served snapshot is persisted in
 * ce_config_snapshot so any worker can serve get(version) for a turn pinned to it.
 */
export function createConfigStore(db: Database, options: ConfigStoreOptions = {}): DatabaseConfigStore {
  return new DbConfigStore(db, options);
}

/** Violations named in a refusal's log line; `convengine validate-config` lists them all. */
const LOGGED_VIOLATIONS = 20;

/**
 * onRejected for a process with a logger: refused rows are a warning an operator sees in the log, with what is
 * wrong, instead of a silent fallback to the previous snapshot.
 */
export function logConfigRejections(logger: Pick<Logger, 'warn'>): ConfigStoreOptions['onRejected'] {
  return (violations) =>
    logger.warn(
      { violations: violations.slice(0, LOGGED_VIOLATIONS).map(formatViolation), count: violations.length },
      `config refused (${violations.length} violation(s)); the last valid config stays in service — run convengine validate-config`
    );
}

class DbConfigStore implements DatabaseConfigStore {
  private snapshot: ConfigSnapshot | undefined;
  private snapshotWarnings: ConfigViolation[] = [];
  private rejected: ConfigViolation[] = [];
  private revision = -1;
  private lastCheckAt = Number.NEGATIVE_INFINITY;
  private inflightCheck: Promise<void> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly recent = new Map<string, ConfigSnapshot>();
  private readonly checkMs: number;
  private readonly cacheSize: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly options: ConfigStoreOptions
  ) {
    this.checkMs = options.stalenessCheckMs ?? 200;
    this.cacheSize = Math.max(1, options.cacheSize ?? 8);
    this.now = options.now ?? Date.now;
  }

  async current(): Promise<ConfigSnapshot> {
    if (!this.snapshot) {
      await this.exclusive(() => (this.snapshot ? Promise.resolve() : this.loadFirst()));
    } else if (this.now() - this.lastCheckAt >= this.checkMs) {
      this.inflightCheck ??= this.exclusive(() => this.checkForChange()).finally(() => {
        this.inflightCheck = null;
      });
      await this.inflightCheck;
    }
    return this.snapshot as ConfigSnapshot;
  }

  async get(version: string): Promise<ConfigSnapshot> {
    if (this.snapshot?.version === version) return this.snapshot;
    const cached = this.recent.get(version);
    if (cached) {
      this.remember(cached);
      return cached;
    }
    const [stored] = await retryOnConnectionLoss(() =>
      this.db
        .select({ rowsJson: ceConfigSnapshot.rowsJson })
        .from(ceConfigSnapshot)
        .where(eq(ceConfigSnapshot.version, version))
    );
    if (!stored) {
      throw new EngineError(ErrorType.ConfigVersionUnavailable, `config version ${version} is not available`, {
        details: { version },
      });
    }
    const rows = stored.rowsJson as ConfigRows;
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

  refresh(): Promise<RefreshResult> {
    return this.exclusive(async () => {
      const { revision, rows } = await readConfigState(this.db);
      this.revision = revision;
      this.lastCheckAt = this.now();
      const version = configVersionOf(rows);
      if (this.snapshot?.version === version) {
        this.rejected = [];
        return { version, changed: false, warnings: [...this.snapshotWarnings] };
      }
      const result = validateConfig(rows, this.options.settings, this.options.validation);
      if (result.violations.length > 0) {
        this.reject(result.violations);
        throw configInvalidError(result.violations, `config version ${version} was refused`);
      }
      await this.serve(rows, result.warnings);
      return { version, changed: true, warnings: result.warnings };
    });
  }

  async validateDatabase(): Promise<DatabaseValidation> {
    const { rows } = await readConfigState(this.db);
    return { version: configVersionOf(rows), ...validateConfig(rows, this.options.settings, this.options.validation) };
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
   * The first snapshot: the tables as they are, or, when they do not validate, the newest stored snapshot that does
   * (as a running process would keep serving it), so one bad edit cannot stop every process that restarts. Only
   * with no valid snapshot at all does it throw.
   */
  private async loadFirst(): Promise<void> {
    const { revision, rows } = await readConfigState(this.db);
    this.revision = revision;
    this.lastCheckAt = this.now();
    const result = validateConfig(rows, this.options.settings, this.options.validation);
    if (result.violations.length === 0) return this.serve(rows, result.warnings);
    const fallback = await this.newestValidStored();
    if (!fallback) {
      this.rejected = result.violations;
      throw configInvalidError(result.violations);
    }
    await this.serve(fallback.rows, fallback.warnings);
    this.reject(result.violations);
  }

  private async newestValidStored(): Promise<{ rows: ConfigRows; warnings: ConfigViolation[] } | null> {
    const stored = await retryOnConnectionLoss(() =>
      this.db
        .select({ rowsJson: ceConfigSnapshot.rowsJson })
        .from(ceConfigSnapshot)
        .orderBy(desc(ceConfigSnapshot.createdAt))
        .limit(STORED_FALLBACK_CANDIDATES)
    );
    for (const { rowsJson } of stored) {
      const rows = rowsJson as ConfigRows;
      const result = validateConfig(rows, this.options.settings, this.options.validation);
      if (result.violations.length === 0) return { rows, warnings: result.warnings };
    }
    return null;
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
      return;
    }
    const result = validateConfig(state.rows, this.options.settings, this.options.validation);
    if (result.violations.length > 0) this.reject(result.violations);
    else await this.serve(state.rows, result.warnings);
  }

  private reject(violations: ConfigViolation[]): void {
    this.rejected = violations;
    this.options.onRejected?.(violations);
  }

  /**
   * Persists the snapshot (so other workers can get() it), then swaps it in. The insert is keyed by
   * the version and does nothing on conflict, so it may be sent again after a lost connection.
   */
  private async serve(rows: ConfigRows, warnings: ConfigViolation[]): Promise<void> {
    const snapshot = snapshotOf(rows);
    await retryOnConnectionLoss(() =>
      this.db
        .insert(ceConfigSnapshot)
        .values({ version: snapshot.version, rowsJson: snapshot.rows })
        .onConflictDoNothing()
    );
    this.snapshot = snapshot;
    this.snapshotWarnings = warnings;
    this.rejected = [];
    this.remember(snapshot);
  }

  private remember(snapshot: ConfigSnapshot): void {
    this.recent.delete(snapshot.version);
    this.recent.set(snapshot.version, snapshot);
    while (this.recent.size > this.cacheSize) {
      const oldest = this.recent.keys().next().value as string;
      this.recent.delete(oldest);
    }
  }
}
