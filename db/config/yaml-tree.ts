import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { parse, stringify } from 'yaml';
import { emptyConfigRows } from '../../core/config/rows';
import type { ConfigRows } from '../../core/config/types';
import { normalizePhase } from '../../core/rules/phase';
import { shownText } from '../../core/text/one-line-text';
import { SEED_CREATED_AT } from '../seed/builders';
import { CONFIG_TABLES } from '../seed/seed';
import { exactCanonicalJson, exactView, YAML_NUMBERS } from './exact-json';
import { CONFIG_PRIMARY_KEYS } from './load';
import { columnValueProblem, keyTextColumns, storedTimestamp, uniqueKeys, yamlCell } from './yaml-columns';

/**
 * Config as code: every ce_* config table as one YAML file (`ce_rule.yaml`, …), a list of rows
 * keyed by column name, rows ordered by primary key and columns in table order. Export is
 * deterministic, so export → apply → export reproduces the files byte for byte. A number in a jsonb
 * column that a double does not hold (1e400, 12345678901234567890123) is written and read exactly
 * (exact-json.ts).
 */
type Row = Record<string, unknown>;
export type YamlFiles = Map<string, string>;

export interface TreeError {
  file: string;
  message: string;
}

const fileOf = (table: PgTable) => `${getTableName(table)}.yaml`;

function columnsOf(table: PgTable): [field: string, column: string][] {
  return Object.entries(getTableColumns(table)).map(([field, column]) => [field, column.name]);
}

function sortKey(key: keyof ConfigRows) {
  const pk = CONFIG_PRIMARY_KEYS[key] as string;
  return (a: Row, b: Row) => {
    const x = a[pk];
    const y = b[pk];
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
  };
}

/** Snapshot row → YAML row (column names; a rule's phase as stored). */
function toYamlRow(table: PgTable, row: Row): Row {
  const out: Row = {};
  for (const [field, column] of columnsOf(table)) {
    const value = field === 'phase' && 'dbPhase' in row ? row['dbPhase'] : row[field];
    out[column] = value === undefined ? null : value;
  }
  return out;
}

/** A YAML row with each jsonb value's exact numbers, written as they are. */
function exactYamlRow(table: PgTable, row: Row): Row {
  const out = toYamlRow(table, row);
  for (const column of Object.values(getTableColumns(table))) {
    if (column.columnType === 'PgJsonb') out[column.name] = exactView(out[column.name]);
  }
  return out;
}

export function configToYaml(rows: ConfigRows): YamlFiles {
  const files: YamlFiles = new Map();
  for (const [key, table] of CONFIG_TABLES) {
    const list = [...(rows[key] as unknown as Row[])].sort(sortKey(key)).map((r) => exactYamlRow(table, r));
    files.set(fileOf(table), list.length === 0 ? '[]\n' : stringify(list, { lineWidth: 0, customTags: YAML_NUMBERS }));
  }
  return files;
}

/**
 * A created_at left out (or null): the instant the bundled packs' rows carry, fixed rather than the time of the
 * apply, so one tree is one config version wherever and whenever it is applied, what-if'd or diffed.
 */
const OMITTED_TIMESTAMP = SEED_CREATED_AT;

function fromYamlRow(table: PgTable, file: string, index: number, raw: unknown, errors: TreeError[]): Row | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    errors.push({ file, message: `row ${index + 1} is not a mapping of column: value` });
    return null;
  }
  const source = raw as Row;
  const columns = columnsOf(table);
  const known = new Set(columns.map(([, column]) => column));
  const unknown = Object.keys(source).filter((k) => !known.has(k));
  if (unknown.length > 0) {
    errors.push({ file, message: `row ${index + 1} has unknown column(s) ${unknown.join(', ')}` });
    return null;
  }
  const row: Row = {};
  const problems: string[] = [];
  const keys = keyTextColumns(table);
  for (const [field, column] of Object.entries(getTableColumns(table))) {
    if (column.name in source) {
      const cell = yamlCell(column, source[column.name]);
      if ('problem' in cell) {
        problems.push(`${column.name} ${cell.problem}`);
        continue;
      }
      row[field] = cell.value;
    } else row[field] = column.hasDefault ? literalDefault(column.default) : null;
    const problem = columnValueProblem(column, row[field], keys.has(column.name));
    if (problem) problems.push(problem);
    // A quoted number ("2.5") is a number, as the database hands it back: validation then judges its value.
    else if (column.columnType === 'PgNumeric' && typeof row[field] === 'string') row[field] = Number(row[field]);
    // As apply stores it, so that what-if and diff see the instant and the version that apply writes.
    else if (column.columnType === 'PgTimestamp')
      row[field] = row[field] == null ? OMITTED_TIMESTAMP : storedTimestamp(row[field] as string | Date);
  }
  if (problems.length > 0) {
    errors.push({ file, message: `row ${index + 1}: ${problems.join('; ')}` });
    return null;
  }
  if (typeof row['phase'] === 'string') {
    row['dbPhase'] = row['phase'];
    row['phase'] = normalizePhase(row['phase']) ?? row['phase'];
  }
  return row;
}

/**
 * The default the YAML loader applies itself to a column left out: a scalar, or a JSON array or object (a jsonb
 * default such as retry_status_codes' [429,502,503,504]), copied so no two rows share it. A SQL expression such as
 * now() (drizzle's SQL object, not a plain object) is left to the database: null here.
 */
function literalDefault(value: unknown): unknown {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  const isJson =
    Array.isArray(value) || (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype);
  return isJson ? structuredClone(value) : null;
}

/** YAML files → config rows; a column left out takes its default (or null); every file and row problem is reported, nothing is guessed. */
export function yamlToConfig(files: YamlFiles): { rows: ConfigRows; errors: TreeError[] } {
  const rows = emptyConfigRows();
  const errors: TreeError[] = [];
  const byFile = new Map(CONFIG_TABLES.map(([key, table]) => [fileOf(table), { key, table }] as const));
  for (const [file, text] of files) {
    const target = byFile.get(file);
    if (!target) {
      errors.push({ file, message: `not a config table file (expected one of ${[...byFile.keys()].join(', ')})` });
      continue;
    }
    let parsed: unknown;
    try {
      parsed = parse(text, { customTags: YAML_NUMBERS });
    } catch (err) {
      // The parser's first line names the line and column; the lines under it quote the file, which is printed on one
      // line with its controls shown (cli/commands/config.ts): they would only run into it.
      const where = (err as Error).message.split('\n')[0]?.replace(/:$/, '');
      errors.push({ file, message: `YAML does not parse: ${where}` });
      continue;
    }
    // Applied, an empty file would empty its table: more often a save gone wrong than a wish.
    if (parsed === null || parsed === undefined) {
      const what = text.length === 0 ? 'is empty (0 bytes)' : 'holds no YAML value';
      errors.push({ file, message: `${what}; a table without rows is written [] (as config export writes it)` });
      continue;
    }
    if (!Array.isArray(parsed)) {
      errors.push({ file, message: 'must be a list of rows' });
      continue;
    }
    const list = parsed.map((raw, i) => fromYamlRow(target.table, file, i, raw, errors));
    duplicateKeys(target.key, target.table, file, parsed, errors);
    (rows[target.key] as unknown as Row[]) = list.filter((r): r is Row => r !== null);
  }
  return { rows, errors };
}

/**
 * Two rows with one primary key: the second would silently replace the first. Two with one UNIQUE key (entity_key,
 * config_type + config_key): the insert would fail, naming neither the file nor the row. A null is no key value.
 */
function duplicateKeys(key: keyof ConfigRows, table: PgTable, file: string, raw: unknown[], errors: TreeError[]) {
  const pk = getTableColumns(table)[CONFIG_PRIMARY_KEYS[key] as string]?.name ?? '';
  for (const columns of [[pk], ...uniqueKeys(table)]) {
    const seen = new Map<string, number>();
    raw.forEach((row, i) => {
      const values = columns.map((c) => (row !== null && typeof row === 'object' ? (row as Row)[c] : undefined));
      if (values.some((v) => v === null || v === undefined)) return;
      const id = JSON.stringify(values.map(String));
      const first = seen.get(id);
      if (first === undefined) seen.set(id, i + 1);
      else if (columns[0] === pk)
        errors.push({ file, message: `row ${i + 1}: the same id (${String(values[0])}) as row ${first}` });
      else {
        const shown = `${columns.join(' + ')} ${values.map((v) => JSON.stringify(v)).join(' + ')}`;
        errors.push({
          file,
          message: `row ${i + 1}: ${shown} is row ${first}'s too; two rows of ${getTableName(table)} may not share it`,
        });
      }
    });
  }
}

export interface RowChange {
  table: string;
  id: string;
  change: '+' | '-' | '~';
  columns: string[];
}

/** What applying `next` over `current` does, table by table, row by primary key. */
export function diffConfig(current: ConfigRows, next: ConfigRows): RowChange[] {
  const changes: RowChange[] = [];
  for (const [key, table] of CONFIG_TABLES) {
    const pk = CONFIG_PRIMARY_KEYS[key] as string;
    const name = getTableName(table);
    const index = (list: Row[]) => new Map(list.map((r) => [String(r[pk]), toYamlRow(table, r)] as const));
    const before = index(current[key] as unknown as Row[]);
    const after = index(next[key] as unknown as Row[]);
    for (const [id, row] of after) {
      const old = before.get(id);
      if (!old) changes.push({ table: name, id, change: '+', columns: [] });
      else {
        const columns = Object.keys(row).filter((c) => exactCanonicalJson(row[c]) !== exactCanonicalJson(old[c]));
        if (columns.length > 0) changes.push({ table: name, id, change: '~', columns });
      }
    }
    for (const id of before.keys()) if (!after.has(id)) changes.push({ table: name, id, change: '-', columns: [] });
  }
  return changes;
}

/** One line of `config diff`: the row's key and column names are a config tree's (any text), their controls shown. */
export function formatChange(c: RowChange): string {
  const columns = c.columns.length > 0 ? `: ${c.columns.join(', ')}` : '';
  return shownText(`${c.change} ${c.table}[${c.id}]${columns}`);
}

/** The tables that have no file in `files`: those a partial tree leaves as they are. */
export function tablesWithoutFile(files: YamlFiles): (keyof ConfigRows)[] {
  return CONFIG_TABLES.filter(([, table]) => !files.has(fileOf(table))).map(([key]) => key);
}

/** `base` with each table that has a file in `files` replaced by that table's rows in `tree`. */
export function withTreeTables(base: ConfigRows, tree: ConfigRows, files: YamlFiles): ConfigRows {
  const out = emptyConfigRows();
  for (const [key, table] of CONFIG_TABLES) {
    (out[key] as unknown as Row[]) = (files.has(fileOf(table)) ? tree[key] : base[key]) as unknown as Row[];
  }
  return out;
}

/** `base` with every row of `over` added, replacing a base row with the same primary key. */
export function overlayConfigRows(base: ConfigRows, over: ConfigRows): ConfigRows {
  const out = emptyConfigRows();
  for (const [key] of CONFIG_TABLES) {
    const pk = CONFIG_PRIMARY_KEYS[key] as string;
    const merged = new Map<string, Row>();
    for (const row of base[key] as unknown as Row[]) merged.set(String(row[pk]), row);
    for (const row of over[key] as unknown as Row[]) merged.set(String(row[pk]), row);
    (out[key] as unknown as Row[]) = [...merged.values()];
  }
  return out;
}
