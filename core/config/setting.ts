import { EngineError, ErrorType } from '../errors';
import { INT32_MAX } from '../int32';
import type { Json } from '../json';
import { checkUserRegex } from '../text/regex';
import type { ConfigRow, ConfigSnapshot, ConfigViolation } from './types';

/**
 * Engine tunables live in ce_config rows keyed by (config_type, config_key), so config authors
 * change behavior without a deploy. Each tunable is declared once with its kind and default; the
 * declaration drives parsing at runtime and validation on load.
 */
export type SettingKind = 'string' | 'int' | 'number' | 'boolean' | 'regex' | 'regexList' | 'json' | 'csv' | 'enum';

interface SettingTypeOf {
  string: string;
  int: number;
  number: number;
  boolean: boolean;
  regex: string;
  regexList: string[];
  json: Json;
  csv: string[];
  enum: string;
}

export interface SettingDefinition<K extends SettingKind = SettingKind> {
  configType: string;
  configKey: string;
  kind: K;
  default: SettingTypeOf[K];
  description: string;
  min?: number;
  max?: number;
  /** For kind 'enum'. */
  values?: readonly string[];
  /** A prompt rendered with the template syntax: validation checks its variables as it does ce_prompt_template's. */
  template?: true;
  /** Variables the step that renders this prompt adds to the usual ones (db.semantic.query's catalog, …). */
  templateVariables?: readonly string[];
}

export function defineSetting<K extends SettingKind>(def: SettingDefinition<K>): SettingDefinition<K> {
  return def;
}

/** The enabled ce_config row that sets `def`, if any. */
export function settingRow(rows: readonly ConfigRow[], def: SettingDefinition): ConfigRow | undefined {
  return rows.find(
    (r) =>
      r.enabled &&
      r.configType.toUpperCase() === def.configType.toUpperCase() &&
      r.configKey.toUpperCase() === def.configKey.toUpperCase()
  );
}

type Fail = (why: string) => never;

/** Parses a raw ce_config value; throws with a human-readable reason when it does not fit the kind. */
export function parseSettingValue<K extends SettingKind>(def: SettingDefinition<K>, raw: string): SettingTypeOf[K] {
  const text = raw.trim();
  const fail: Fail = (why) => {
    throw new Error(`${def.configType}.${def.configKey} ${why} (got "${raw}")`);
  };
  return parsedByKind(def, raw, text, fail) as SettingTypeOf[K];
}

function parsedByKind(def: SettingDefinition, raw: string, text: string, fail: Fail): SettingTypeOf[SettingKind] {
  switch (def.kind) {
    case 'string':
      return raw;
    case 'int':
    case 'number':
      return numberValue(def, text, fail);
    case 'boolean':
      return booleanValue(text, fail);
    case 'regex':
      return checkedRegex(text, fail);
    case 'regexList':
      return regexList(text, fail);
    case 'json':
      return jsonValue(text, fail);
    case 'csv':
      return csvList(text);
    case 'enum':
      return enumValue(def, text, fail);
  }
}

function numberValue(def: SettingDefinition, text: string, fail: Fail): number {
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) fail(`must be a number`);
  if (def.kind === 'int' && !/^[+-]?\d+$/.test(text)) fail('must be an integer in decimal digits');
  if (def.min !== undefined && n < def.min) fail(`must be >= ${def.min}`);
  // An int setting is Java's int, as the reference reads these keys, and many are timer delays: INT32_MAX caps both.
  const max = def.kind === 'int' ? Math.min(def.max ?? INT32_MAX, INT32_MAX) : def.max;
  if (max !== undefined && n > max) fail(`must be <= ${max}`);
  return n;
}

function booleanValue(text: string, fail: Fail): boolean {
  const t = text.toLowerCase();
  if (['true', '1', 'yes', 'y'].includes(t)) return true;
  if (['false', '0', 'no', 'n'].includes(t)) return false;
  return fail('must be true or false');
}

function jsonValue(text: string, fail: Fail): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return fail('is not valid JSON');
  }
}

function csvList(text: string): string[] {
  if (text === '') return [];
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function enumValue(def: SettingDefinition, text: string, fail: Fail): string {
  const upper = text.toUpperCase();
  if (!def.values?.includes(upper)) fail(`must be one of ${def.values?.join(', ')}`);
  return upper;
}

/** Java-style patterns (leading (?i) etc.), compiled and checked the way every matcher compiles them. */
function checkedRegex(pattern: string, fail: Fail): string {
  const reason = checkUserRegex(pattern, { ignoreCase: true });
  if (reason !== null)
    fail(reason.replace(/^invalid regular expression "[^"]*": /, 'is not a valid regular expression: '));
  return pattern;
}

/**
 * A JSON array of patterns, each checked as a `regex` setting is: a typo or a catastrophic pattern refused on load,
 * not a matcher that silently never matches (a security gate left open) or freezes the process on one message.
 */
function regexList(text: string, fail: Fail): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text === '' ? '[]' : text);
  } catch {
    return fail('is not valid JSON (a JSON array of regular expressions)');
  }
  if (!Array.isArray(parsed) || parsed.some((p) => typeof p !== 'string')) {
    return fail('must be a JSON array of regular expressions (strings)');
  }
  // Blank entries are allowed and skipped; a fault is named by its index in the array as stored.
  for (const [i, p] of (parsed as string[]).entries()) {
    const reason = p.trim() === '' ? null : checkUserRegex(p, { ignoreCase: true });
    if (reason !== null) fail(`[${i}]: ${reason}`);
  }
  return (parsed as string[]).filter((p) => p.trim() !== '');
}

/**
 * The setting's value in this snapshot, or its default. Validation guarantees the values of a snapshot it passed
 * parse; one it did not judge (a turn pinned to a version stored before a rule was added) is a config error that
 * another attempt cannot fix, not a retryable crash.
 */
export function readSetting<K extends SettingKind>(
  snapshot: ConfigSnapshot,
  def: SettingDefinition<K>
): SettingTypeOf[K] {
  try {
    return readSettingFrom(snapshot.rows.configs, def);
  } catch (err) {
    throw new EngineError(ErrorType.ConfigInvalid, err instanceof Error ? err.message : String(err));
  }
}

/** The same from ce_config rows not yet validated (validation's own checks): throws when a value does not parse. */
export function readSettingFrom<K extends SettingKind>(
  configs: readonly ConfigRow[],
  def: SettingDefinition<K>
): SettingTypeOf[K] {
  const row = settingRow(configs, def);
  if (!row || row.configValue === null) return def.default;
  return parseSettingValue(def, row.configValue);
}

export function validateSettingRows(rows: readonly ConfigRow[], defs: readonly SettingDefinition[]): ConfigViolation[] {
  const violations: ConfigViolation[] = [];
  for (const def of defs) {
    const row = settingRow(rows, def);
    if (!row || row.configValue === null) continue;
    try {
      parseSettingValue(def, row.configValue);
    } catch (err) {
      violations.push({ table: 'ce_config', id: String(row.configId), reason: (err as Error).message });
    }
  }
  return violations;
}
