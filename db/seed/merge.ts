import { emptyConfigRows } from '../../core/config/rows';
import type { ConfigRows } from '../../core/config/types';
import { canonicalJson } from '../../core/json';
import { CONFIG_PRIMARY_KEYS } from '../config/load';
import type { BusinessTable, SeedPack } from './types';

export class SeedConflictError extends Error {
  readonly type = 'SEED_CONFLICT';
}

/** Concatenates config fragments; a primary key defined twice must be defined identically. */
export function mergeConfigRows(fragments: readonly Partial<ConfigRows>[], origin = 'seed packs'): ConfigRows {
  const merged = emptyConfigRows();
  for (const table of Object.keys(CONFIG_PRIMARY_KEYS) as (keyof ConfigRows)[]) {
    const key = CONFIG_PRIMARY_KEYS[table];
    const seen = new Map<unknown, unknown>();
    const out: unknown[] = [];
    for (const fragment of fragments) {
      for (const row of (fragment[table] ?? []) as unknown as Record<string, unknown>[]) {
        const previous = seen.get(row[key]);
        if (previous === undefined) {
          seen.set(row[key], row);
          out.push(row);
        } else if (canonicalJson(previous) !== canonicalJson(row)) {
          throw new SeedConflictError(`${origin} define ${table} ${key}=${String(row[key])} differently`);
        }
      }
    }
    (merged as unknown as Record<string, unknown[]>)[table] = out;
  }
  return merged;
}

/** The config of some packs together, as in-memory rows (tests and demos can use it without a database). */
export function packConfigRows(packs: readonly SeedPack[]): ConfigRows {
  return mergeConfigRows(
    packs.map((p) => p.rows),
    `packs ${packs.map((p) => p.name).join(', ')}`
  );
}

/** Business tables of several packs; a table defined by two packs must have the same columns. */
export function mergeBusinessTables(packs: readonly SeedPack[]): BusinessTable[] {
  const byName = new Map<string, BusinessTable>();
  for (const table of packs.flatMap((p) => p.business)) {
    const previous = byName.get(table.name);
    if (!previous) {
      byName.set(table.name, table);
      continue;
    }
    if (canonicalJson(previous.columns) !== canonicalJson(table.columns)) {
      throw new SeedConflictError(`business.${table.name} is defined with different columns by two packs`);
    }
    byName.set(table.name, { ...previous, rows: [...previous.rows, ...table.rows] });
  }
  return [...byName.values()];
}
