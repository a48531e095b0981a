import { isEmptyConfig } from '../../core/config/empty';
import type { ConfigSnapshot, ConfigViolation } from '../../core/config/types';
import type { Database } from '../pool';
import { configVersionOf, readConfigState, snapshotOf } from './load';
import { lastServedSnapshots } from './snapshots';
import { validateYielding, type ConfigChecks } from './validate-yielding';

/** Stored snapshots tried, the last in service first, when the tables do not validate at start. */
const STORED_FALLBACK_CANDIDATES = 5;

/** A stored snapshot that validates, with its warnings. */
export interface StoredCandidate {
  snapshot: ConfigSnapshot;
  warnings: ConfigViolation[];
}

/** The stored snapshot a store falls back to while it refuses the tables: the newest in service that validates. */
export async function newestValidStored(db: Database, checks: ConfigChecks): Promise<StoredCandidate | null> {
  for (const rows of await lastServedSnapshots(db, STORED_FALLBACK_CANDIDATES)) {
    const result = await validateYielding(rows, checks);
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
  const { violations } = await validateYielding(rows, checks);
  const fallback = violations.length > 0 ? await newestValidStored(db, checks) : null;
  const fallbackVersion = fallback?.snapshot.version ?? null;
  return { version: configVersionOf(rows), violations, fallbackVersion, empty: isEmptyConfig(rows) };
}
