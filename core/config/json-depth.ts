import { exceedsJsonDepth } from '../json';
import { MAX_OUTPUT_DEPTH } from '../text/storable-output';
import type { ConfigRows } from './types';

/**
 * How deep a config row's JSON (json_schema, fields_json, a tool's http settings, …) may nest: as deep as model
 * and tool JSON may, far beyond any real schema. The config version hash, the validator, snapshot freezing and
 * the YAML diff all walk that JSON recursively; 5,000 levels written with SQL overflowed the stack in each of
 * them, so validate-config named no row and every process refused to start.
 */
export const MAX_CONFIG_JSON_DEPTH = MAX_OUTPUT_DEPTH;

/**
 * What a value nested deeper than MAX_CONFIG_JSON_DEPTH is read as, so the row stays in the set (validation names
 * it, `config apply` replaces it, `config diff` shows it changed) while nothing walks the value itself. It starts
 * with NUL, which neither jsonb nor text can hold, so no stored value reads as it.
 */
export const OVER_DEEP_VALUE = `\u0000nested deeper than ${MAX_CONFIG_JSON_DEPTH} levels`;

export function isOverDeepValue(value: unknown): boolean {
  return value === OVER_DEEP_VALUE;
}

type Row = Record<string, unknown>;

/** `row` with every field nested deeper than the limit read as OVER_DEEP_VALUE; the same row when none is. */
export function screenConfigRow<T extends object>(row: T): T {
  let screened: Row | undefined;
  for (const [field, value] of Object.entries(row)) {
    if (!exceedsJsonDepth(value, MAX_CONFIG_JSON_DEPTH)) continue;
    screened ??= { ...(row as Row) };
    screened[field] = OVER_DEEP_VALUE;
  }
  return (screened ?? row) as T;
}

/** Every table of `rows` with its rows screened (screenConfigRow); the same object when no value is too deep. */
export function screenConfigRows(rows: ConfigRows): ConfigRows {
  let screened: Record<string, unknown[]> | undefined;
  for (const [table, list] of Object.entries(rows) as [string, object[] | undefined][]) {
    if (!Array.isArray(list)) continue;
    const copy = list.map((row) => screenConfigRow(row));
    if (copy.some((row, i) => row !== list[i]))
      (screened ??= { ...(rows as unknown as Record<string, unknown[]>) })[table] = copy;
  }
  return (screened ?? rows) as unknown as ConfigRows;
}
