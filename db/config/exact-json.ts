import {
  isLosslessNumber,
  isSafeNumber,
  LosslessNumber,
  parse as parseLossless,
  stringify as stringifyLossless,
} from 'lossless-json';
import type { ScalarTag, Tags } from 'yaml';
import { canonicalNumber } from '../../core/json-loss';
import { cutText } from '../../core/text/cut-text';

/**
 * jsonb holds numbers as PostgreSQL numeric, of any size and precision; JavaScript reads them as doubles, so
 * 1e400 (Infinity, then null), 12345678901234567890123 and 0.12345678901234567890123 change when read. The engine
 * runs on the doubles, but config as code must not change what it carries: `config export` writes each number as
 * stored, `config apply` writes back what the tree says, and `config diff` compares the numbers themselves.
 *
 * So a jsonb value that holds a number a double does not hold exactly is read as usual (the plain value, its
 * numbers as doubles), and that object is registered here with its exact JSON text, which export, diff and apply
 * use in its place. The value is frozen, so the text cannot go stale; a changed value is a new object, which has
 * none. A number that is the whole jsonb value cannot be registered (it is no object): config as code refuses it,
 * naming the row and column, rather than change it.
 */
const EXACT = new WeakMap<object, string>();

/** A JSON numeral: a number when a double holds it exactly, else kept as its text. */
function exactNumber(text: string): number | LosslessNumber {
  return isSafeNumber(text) ? Number(text) : new LosslessNumber(text);
}

/** The value with its exact numbers (LosslessNumber) as doubles: what the engine reads. */
function asDoubles(value: unknown): unknown {
  if (isLosslessNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(asDoubles);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, asDoubles(item)]));
  }
  return value;
}

function holds(value: unknown, test: (item: unknown) => boolean): boolean {
  if (test(value)) return true;
  if (value === null || typeof value !== 'object' || isLosslessNumber(value)) return false;
  return Object.values(value).some((item) => holds(item, test));
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const item of Object.values(value)) deepFreeze(item);
}

function register(plain: object, text: string): void {
  deepFreeze(plain);
  EXACT.set(plain, text);
}

/** A number's text for an error: its first digits and how many there are, as 1e400 has 401. */
export function shortNumber(text: string): string {
  return text.length <= 40 ? text : `${cutText(text, 24)}… (${text.length} characters)`;
}

const scalarRefusal = (text: string) =>
  `is the number ${shortNumber(text)}, which a double does not hold exactly: config as code carries such a number ` +
  'exactly only inside a list or a mapping, so it refuses this one rather than change it';

/**
 * A jsonb column's value as YAML parsed it (YAML_NUMBERS: exact numbers as LosslessNumber) → the plain value,
 * registered with its exact text when it holds such a number; or why it cannot be stored as it is written.
 */
export function jsonbFromYaml(value: unknown): { value: unknown } | { problem: string } {
  if (holds(value, (item) => typeof item === 'number' && !Number.isFinite(item))) {
    return { problem: 'holds .inf or .nan, which JSON (and so jsonb) cannot hold' };
  }
  if (isLosslessNumber(value)) return { problem: scalarRefusal(value.value) };
  if (!holds(value, isLosslessNumber)) return { value };
  const plain = asDoubles(value) as object;
  register(plain, stringifyLossless(value) as string);
  return { value: plain };
}

/**
 * Registers `plain`, a jsonb value as the engine read it, with `text`, the same value as PostgreSQL writes it,
 * when the text holds a number a double does not hold exactly. Null when done (or nothing to do); else why the
 * value cannot be carried exactly (a number that is the whole value).
 */
export function registerDatabaseJsonb(plain: unknown, text: string): string | null {
  if (plain === null || typeof plain !== 'object') {
    return typeof plain === 'number' && !isSafeNumber(text) ? scalarRefusal(text) : null;
  }
  let exact = false;
  parseLossless(text, null, (numeral) => {
    if (!isSafeNumber(numeral)) exact = true;
    return 0;
  });
  if (exact) register(plain, text);
  return null;
}

/** The exact JSON text of a registered jsonb value, for an insert; undefined for any other value. */
export function exactJsonText(value: unknown): string | undefined {
  return value !== null && typeof value === 'object' ? EXACT.get(value) : undefined;
}

/** A registered value with its exact numbers as LosslessNumber (written verbatim to YAML); any other as it is. */
export function exactView(value: unknown): unknown {
  const text = exactJsonText(value);
  return text === undefined ? value : parseLossless(text, null, exactNumber);
}

function canonical(value: unknown): string {
  if (isLosslessNumber(value)) return canonicalNumber(value.value);
  if (typeof value === 'number') return Number.isFinite(value) ? canonicalNumber(String(value)) : 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Equal for equal values, exact numbers compared exactly (config diff): keys sorted, numbers by value. */
export function exactCanonicalJson(value: unknown): string {
  return canonical(exactView(value));
}

/** YAML's ways of writing a decimal number (+1, .5, 1., 007, 1e3) as JSON writes them (1, 0.5, 1, 7, 1e3). */
function jsonNumeral(yaml: string): string {
  const [, sign = '', whole = '', fraction = '', exponent = ''] =
    /^([-+]?)([0-9]*)\.?([0-9]*)([eE][-+]?[0-9]+)?$/.exec(yaml) ?? [];
  const integer = whole.replace(/^0+(?=.)/, '') || '0';
  return `${sign === '-' ? '-' : ''}${integer}${fraction ? `.${fraction}` : ''}${exponent}`;
}

/** A decimal number in YAML: a double when it holds it exactly, else a LosslessNumber; written back verbatim. */
const decimalNumber: ScalarTag = {
  identify: (value) => isLosslessNumber(value),
  default: true,
  tag: 'tag:yaml.org,2002:float',
  test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/,
  resolve: (text) => exactNumber(jsonNumeral(text)),
  stringify: ({ value }) => (value as LosslessNumber).value,
};

/** A hexadecimal or octal integer in YAML (0x1F, 0o17), read exactly however large. */
const radixInteger: ScalarTag = {
  identify: () => false,
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: /^0x[0-9a-fA-F]+$|^0o[0-7]+$/,
  resolve: (text) => exactNumber(BigInt(text).toString()),
};

/** The `customTags` option for parsing and writing config YAML with its numbers exact. */
export const YAML_NUMBERS = (tags: Tags): Tags => [decimalNumber, radixInteger, ...tags];
