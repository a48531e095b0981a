import type { PgColumn } from 'drizzle-orm/pg-core';
import { INT32_MAX } from '../../core/int32';

/**
 * What a YAML value must be to go into its column: the loader says so, naming the row and the
 * column, instead of leaving it to PostgreSQL (whose refusal named neither) or to a validator that
 * expects the column's type. Nothing is coerced: a number where text is wanted is the author's to
 * quote.
 */
const NUMERIC = /^-?\d+(\.\d+)?$/;
const NUL = 'contains a NUL character, which PostgreSQL cannot store';

function describe(value: unknown): string {
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/** An ISO 8601 date or date-time that is a real instant ("2026-13-45" and "yesterday" are not). */
function isTimestamp(value: unknown): boolean {
  if (value instanceof Date) return !Number.isNaN(value.getTime());
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}([T ]|$)/.test(value) && !Number.isNaN(Date.parse(value));
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
      return isTimestamp(value) ? null : 'must be a timestamp such as 2026-01-31T12:00:00.000Z';
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

/** Null when `value` fits `column`; else what is wrong with it, e.g. `priority must be a whole number (32-bit), got "high"`. */
export function columnValueProblem(column: PgColumn, value: unknown): string | null {
  if (value === null || value === undefined) {
    return column.notNull && !column.hasDefault ? `${column.name} must be set` : null;
  }
  const numeric = column.columnType === 'PgNumeric' ? precisionOf(column) : null;
  const problem =
    typeProblem(column.columnType, value) ??
    (numeric && numericOverflow(value as number | string, numeric.precision, numeric.scale));
  if (!problem) return null;
  // A NUL is shown by name only: echoed, it would cut the author's terminal line short.
  return problem === NUL ? `${column.name} ${problem}` : `${column.name} ${problem}, got ${describe(value)}`;
}
