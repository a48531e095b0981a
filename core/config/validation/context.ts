import { normalizeScopeValue } from '../scope';
import { declaredStates } from '../states';
import type { ConfigRows, ConfigViolation, IntentRow } from '../types';

/** Collects violations (config refused) and warnings (config accepted, author should look). */
export class ValidationSink {
  readonly violations: ConfigViolation[] = [];
  readonly warnings: ConfigViolation[] = [];

  violation(table: string, id: string | number, reason: string): void {
    this.violations.push({ table, id: String(id), reason });
  }

  warning(table: string, id: string | number, reason: string): void {
    this.warnings.push({ table, id: String(id), reason });
  }
}

/** Facts derived once from the rows and shared by every check. */
export interface ValidationContext {
  readonly rows: ConfigRows;
  readonly sink: ValidationSink;
  /** Every ce_intent row by normalized code, enabled or not. */
  readonly intents: ReadonlyMap<string, IntentRow>;
  /** §11.2: enabled ce_rule states ∪ enabled SET_STATE targets ∪ {ANY, UNKNOWN}, normalized. */
  readonly allowedStates: ReadonlySet<string>;
  /** ValidationOptions.checkToolSql, when the caller has a SQL parser. */
  readonly checkToolSql?: ToolSqlCheck;
  /** False for a table whose rows were not given (ValidationOptions.absentTables): what needs it is not checked. */
  readonly has: (table: keyof ConfigRows) => boolean;
}

/**
 * The SQL guardrail as tools run it, for a tool's sql_template: the refusal's reason, or null.
 * Injected: the parser is WASM its caller loads, and core/sql stays out of this module's imports.
 * `enforcePolicy: false` leaves out what ce_mcp_sql_guardrail rows could change (the function lists).
 */
export type ToolSqlCheck = (sql: string, rows: ConfigRows, options?: { enforcePolicy?: boolean }) => string | null;

export interface ValidationOptions {
  checkToolSql?: ToolSqlCheck;
  /**
   * Tables whose rows are not known, as in a config-as-code tree without their files (`config validate` of a
   * partial tree, whose missing tables `config apply` keeps as the database has them). Their lists are empty
   * here, which says nothing about the real ones: checks that look a row up in them are skipped, not failed.
   */
  absentTables?: readonly (keyof ConfigRows)[];
}

export function buildValidationContext(rows: ConfigRows, options: ValidationOptions = {}): ValidationContext {
  const intents = new Map<string, IntentRow>();
  // Codes that differ only in case are one intent (a violation of their own); the enabled row is the one in force.
  for (const intent of rows.intents) {
    const code = normalizeScopeValue(intent.intentCode);
    if (intent.enabled || !intents.get(code)?.enabled) intents.set(code, intent);
  }
  const allowedStates = declaredStates(rows.rules);
  const check = options.checkToolSql;
  const absent = new Set(options.absentTables ?? []);
  const has = (table: keyof ConfigRows) => !absent.has(table);
  return { rows, sink: new ValidationSink(), intents, allowedStates, has, ...(check ? { checkToolSql: check } : {}) };
}

export function isBlank(value: string | null | undefined): boolean {
  return (value ?? '').trim() === '';
}

/**
 * Rows whose key is equal to an earlier row's: each later row with the first row of its key. `keyOf` returns
 * null for a row that takes no part (disabled, blank).
 */
export function repeatedKeys<T>(rows: readonly T[], keyOf: (row: T) => string | null): [first: T, repeat: T][] {
  const firsts = new Map<string, T>();
  const repeats: [T, T][] = [];
  for (const row of rows) {
    const key = keyOf(row);
    if (key === null) continue;
    const first = firsts.get(key);
    if (first === undefined) firsts.set(key, row);
    else repeats.push([first, row]);
  }
  return repeats;
}
