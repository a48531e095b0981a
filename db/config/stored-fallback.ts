import { isEmptyConfig } from '../../core/config/empty';
import type { SettingDefinition } from '../../core/config/setting';
import type { ConfigSnapshot, ConfigViolation } from '../../core/config/types';
import { validateConfig } from '../../core/config/validate';
import type { ValidationOptions } from '../../core/config/validation/context';
import type { Database } from '../pool';
import { configVersionOf, readConfigState, snapshotOf } from './load';
import { lastServedSnapshots } from './snapshots';

/** Stored snapshots tried, the last in service first, when the tables do not validate at start. */
const STORED_FALLBACK_CANDIDATES = 5;

/** What config rows are validated against (ConfigStoreOptions). */
export interface ConfigChecks {
  /** Declared ce_config settings to validate against (default: every declared setting). */
  settings?: readonly SettingDefinition[];
  /** Checks that need I/O-side parts (the SQL parser for sql_template), as `config apply` runs them. */
  validation?: ValidationOptions;
}

/** A stored snapshot that validates, with its warnings. */
export interface StoredCandidate {
  snapshot: ConfigSnapshot;
  warnings: ConfigViolation[];
}

/** The stored snapshot a store falls back to while it refuses the tables: the newest in service that validates. */
export async function newestValidStored(db: Database, checks: ConfigChecks): Promise<StoredCandidate | null> {
  for (const rows of await lastServedSnapshots(db, STORED_FALLBACK_CANDIDATES)) {
    const result = validateConfig(rows, checks.settings, checks.validation);
    if (result.violations.length === 0) return { snapshot: snapshotOf(rows), warnings: result.warnings };
  }
  return null;
}

/** What a process starting now would serve: the tables, or while they are refused, the stored fallback (if any). */
export interface ConfigServing {
  /** The version of the tables as they are. */
  version: string;
  violations: ConfigViolation[];
  /** The stored snapshot served instead while `violations` is not empty; null when none validates. */
  fallbackVersion: string | null;
  /** No ce_intent and no ce_response row (core/config/empty.ts): valid, yet every message fails. */
  empty: boolean;
}

/** Read-only (`convengine doctor`): judges the tables as a store would, without recording anything as served. */
export async function configServing(db: Database, checks: ConfigChecks = {}): Promise<ConfigServing> {
  const { rows } = await readConfigState(db);
  const { violations } = validateConfig(rows, checks.settings, checks.validation);
  const fallback = violations.length > 0 ? await newestValidStored(db, checks) : null;
  const fallbackVersion = fallback?.snapshot.version ?? null;
  return { version: configVersionOf(rows), violations, fallbackVersion, empty: isEmptyConfig(rows) };
}
