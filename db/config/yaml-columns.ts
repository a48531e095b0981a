import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import { isLosslessNumber } from 'lossless-json';
import { INT32_MAX } from '../../core/int32';
import { inTimestamptzRange, TIMESTAMPTZ_RANGE } from '../../core/timestamptz';
import { jsonbFromYaml } from './exact-json';
import { cutText } from '../../core/text/cut-text';

/**
 * What a YAML value must be to go into its column: the loader says so, naming the row and the
 * column, instead of leaving it to PostgreSQL (whose refusal named neither) or to a validator that
 * expects the column's type. Nothing is coerced: a number where text is wanted is the author's to
 * quote.
 */
const NUMERIC = /^-?\d+(\.\d+)?$/;
const NUL = 'contains a NUL character, which PostgreSQL cannot store';

function describe(value: unknown): string {
  if (typeof value === 'string') return `"${value.length > 40 ? `${cutText(value, 40)}…` : value}"`;
  if (isLosslessNumber(value)) return value.value.length > 40 ? `${value.value.slice(0, 40)}…` : value.value;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/**
 * What `config export` writes (`2026-01-31T12:00:00.000Z`), and the other ISO 8601 forms of an instant: a space for
 * the T, seconds and milliseconds left out, an offset for the Z. A date or a time without a zone is no instant: read
 * in the time zone of whichever machine applies it, it would give each a different config version.
 */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const TIMESTAMP_FORM = 'must be a timestamp such as 2026-01-31T12:00:00.000Z';
const ZONELESS = `${TIMESTAMP_FORM}, with a time and its zone (Z or an offset such as +02:00): without one it would be read in the time zone of the machine that applies it`;

/**
 * Null for a timestamp written as above that names a real instant; else why not. Date.parse alone takes
 * 2026-02-30 for March 2: stored so, the tree would no longer export as it was written.
 */
function timestampProblem(value: unknown): string | null {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? TIMESTAMP_FORM : rangeProblem(value);
  const parts = typeof value === 'string' ? TIMESTAMP.exec(value) : null;
  if (!parts) return TIMESTAMP_FORM;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = parts.slice(1, 7).map((p) => Number(p ?? 0));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const real = date.getUTCMonth() === month - 1 && date.getUTCDate() === day && hour < 24 && minute < 60 && second < 60;
  const at = new Date(Date.parse(parts[0]));
  if (!real || Number.isNaN(at.getTime())) return `${TIMESTAMP_FORM} (no such day or time)`;
  return parts[4] === undefined || parts[7] === undefined ? ZONELESS : rangeProblem(at);
}

/** The year checked above is the written one: an offset can carry 0001-01-01 or 9999-12-31 out of the range. */
function rangeProblem(at: Date): string | null {
  return inTimestamptzRange(at) ? null : `${TIMESTAMP_FORM}, an instant ${TIMESTAMPTZ_RANGE}`;
}

/** A timestamp timestampProblem took, as the database hands it back: `2026-01-31T10:00:00.000Z` for 12:00+02:00. */
export function storedTimestamp(value: string | Date): string {
  return new Date(value).toISOString();
}

function typeProblem(columnType: string, value: unknown): string | null {
  switch (columnType) {
    case 'PgInteger':
      return Number.isInteger(value) && Math.abs(value as number) <= INT32_MAX
        ? null
        : 'must be a whole number (32-bit)';
    case 'PgBigInt53':
      return Number.isSafeInteger(value) ? null : 'must be a whole number';
    case 'PgBoolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'PgNumeric':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && NUMERIC.test(value))
        ? null
        : 'must be a number';
    case 'PgText':
      if (typeof value !== 'string') return "must be text (quote it: 'like this')";
      return value.includes('\u0000') ? NUL : null;
    case 'PgJsonb':
      return JSON.stringify(value).includes('\\u0000') ? NUL : null;
    case 'PgTimestamp':
      return timestampProblem(value);
    default:
      return null;
  }
}

/**
 * numeric(p, s) as PostgreSQL stores it: rounded to s decimals (half away from zero), it must have at most p - s
 * digits before the point, or the insert fails with "numeric field overflow". `value` already matched NUMERIC
 * (a JS number's exponent form aside, which is either past every precision here or rounds to 0).
 */
function numericOverflow(value: number | string, precision: number, scale: number): string | null {
  const text = String(value).replace(/^-/, '');
  const limit = `must fit numeric(${precision}, ${scale}), under ${10 ** (precision - scale)} in absolute value`;
  if (/e/i.test(text)) return Math.abs(Number(text)) >= 10 ** (precision - scale) ? limit : null;
  const [whole = '', fraction = ''] = text.split('.');
  let digits = BigInt(`${whole}${fraction.slice(0, scale).padEnd(scale, '0')}`);
  if ((fraction[scale] ?? '0') >= '5') digits += 1n;
  return digits >= 10n ** BigInt(precision) ? limit : null;
}

function precisionOf(column: PgColumn): { precision: number; scale: number } | null {
  const { precision, scale } = column as PgColumn & { precision?: number; scale?: number };
  return precision === undefined ? null : { precision, scale: scale ?? 0 };
}

/**
 * The longest text a key column (one an index holds: a primary key, a unique column or constraint) takes. A btree
 * index entry holds at most 2,704 bytes; the widest such index, ce_config (config_type, config_key), holds two
 * columns of at most 256 characters of at most 4 bytes each (2,048 bytes) with room to spare. Longer, the insert
 * fails ("index row requires … bytes") where validate and --dry-run had passed it.
 */
export const KEY_TEXT_MAX_CHARACTERS = 256;

/** The database names of the text columns of `table` that an index holds, as the schema declares them. */
export function keyTextColumns(table: PgTable): ReadonlySet<string> {
  let keys = KEY_COLUMNS.get(table);
  if (!keys) KEY_COLUMNS.set(table, (keys = findKeyTextColumns(table)));
  return keys;
}

const KEY_COLUMNS = new WeakMap<PgTable, ReadonlySet<string>>();

/** The column names of each UNIQUE key of `table` besides its primary key, as the schema declares them. */
export function uniqueKeys(table: PgTable): string[][] {
  const { columns, uniqueConstraints } = getTableConfig(table);
  return [
    ...columns.filter((c) => c.isUnique && !c.primary).map((c) => [c.name]),
    ...uniqueConstraints.map((constraint) => constraint.columns.map((c) => c.name)),
  ];
}

function findKeyTextColumns(table: PgTable): ReadonlySet<string> {
  const { columns, uniqueConstraints, primaryKeys, indexes } = getTableConfig(table);
  const indexed = new Set<string>(columns.filter((c) => c.primary || c.isUnique).map((c) => c.name));
  for (const constraint of [...uniqueConstraints, ...primaryKeys])
    for (const c of constraint.columns) indexed.add(c.name);
  for (const index of indexes) {
    for (const c of index.config.columns) if ('name' in c && typeof c.name === 'string') indexed.add(c.name);
  }
  return new Set(columns.filter((c) => c.columnType === 'PgText' && indexed.has(c.name)).map((c) => c.name));
}

/**
 * A value as YAML parsed it (a number a double does not hold exactly as a LosslessNumber, exact-json.ts) as its
 * column takes it: a jsonb value with its exact text registered, or why it cannot be stored as written; a numeric
 * column's as a double (numeric(p, s) columns hold far fewer digits); any other as it is, for the check to refuse
 * by its exact text (9007199254740993 is no bigint id, and was read as 9007199254740992).
 */
export function yamlCell(column: PgColumn, value: unknown): { value: unknown } | { problem: string } {
  if (column.columnType === 'PgJsonb') return jsonbFromYaml(value);
  return { value: isLosslessNumber(value) && column.columnType === 'PgNumeric' ? Number(value.value) : value };
}

/** Null when `value` fits `column`; else what is wrong with it, e.g. `priority must be a whole number (32-bit), got "high"`. */
export function columnValueProblem(column: PgColumn, value: unknown, isKey = false): string | null {
  if (value === null || value === undefined) {
    return column.notNull && !column.hasDefault ? `${column.name} must be set` : null;
  }
  const numeric = column.columnType === 'PgNumeric' ? precisionOf(column) : null;
  const problem =
    typeProblem(column.columnType, value) ??
    (numeric && numericOverflow(value as number | string, numeric.precision, numeric.scale)) ??
    (isKey ? keyLengthProblem(value as string) : null);
  if (!problem) return null;
  // A NUL is shown by name only: echoed, it would cut the author's terminal line short.
  return problem === NUL ? `${column.name} ${problem}` : `${column.name} ${problem}, got ${describe(value)}`;
}

function keyLengthProblem(value: string): string | null {
  const length = [...value].length;
  if (length <= KEY_TEXT_MAX_CHARACTERS) return null;
  return `must be at most ${KEY_TEXT_MAX_CHARACTERS} characters, as an index holds it (${length} characters)`;
}
