/**
 * Scope matching shared by every scoped config table (D11): ce_rule, ce_response,
 * ce_prompt_template, ce_mcp_tool, ce_mcp_planner, ce_output_schema, ce_pending_action,
 * ce_intent_classifier. A row matches when its intent equals the session intent (case-insensitive)
 * or is `ANY`, and the same for its state. A null/blank row value never matches (validation
 * rejects such rows anyway); `UNKNOWN` is a literal value, not a wildcard.
 */
import { findTextProblem } from '../text/unsafe-text';

export const ANY_SCOPE = 'ANY';
export const UNKNOWN_SCOPE = 'UNKNOWN';

export interface ScopedRow {
  readonly intentCode: string | null;
  readonly stateCode: string | null;
}

/** Trimmed and upper-cased; null/undefined become ''. */
export function normalizeScopeValue(value: string | null | undefined): string {
  return (value ?? '').trim().toUpperCase();
}

export function isBlankScopeValue(value: string | null | undefined): boolean {
  return normalizeScopeValue(value) === '';
}

/** The longest intent or state code a filter takes (the console's, api/routes/console/conversations.ts). */
export const MAX_FILTER_CODE_CHARS = 100;

/**
 * Whether `value` is an intent or state code a filter takes: any code config validation takes (not blank, as codes
 * are compared trimmed, and text that can be stored: core/text/unsafe-text.ts), so `straße_zustand` too, of at most
 * MAX_FILTER_CODE_CHARS characters (code points, as JSON Schema's maxLength counts them).
 */
export function isFilterCode(value: string): boolean {
  return !isBlankScopeValue(value) && [...value].length <= MAX_FILTER_CODE_CHARS && !findTextProblem(value, 'code');
}

export function isAnyScope(value: string | null | undefined): boolean {
  return normalizeScopeValue(value) === ANY_SCOPE;
}

/** Whether two rows' values (intents or states) admit a common session value: equal, or either is ANY. */
export function scopeValuesOverlap(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = normalizeScopeValue(a);
  const y = normalizeScopeValue(b);
  return x === y || x === ANY_SCOPE || y === ANY_SCOPE;
}

/** Whether one row value (an intent or a state) admits the session's value. */
export function scopeValueMatches(
  rowValue: string | null | undefined,
  sessionValue: string | null | undefined
): boolean {
  const row = normalizeScopeValue(rowValue);
  if (row === '') return false;
  if (row === ANY_SCOPE) return true;
  return row === normalizeScopeValue(sessionValue);
}

export function scopeMatches(
  row: ScopedRow,
  intent: string | null | undefined,
  state: string | null | undefined
): boolean {
  return scopeValueMatches(row.intentCode, intent) && scopeValueMatches(row.stateCode, state);
}

function isExact(rowValue: string | null | undefined, sessionValue: string | null | undefined): boolean {
  const row = normalizeScopeValue(rowValue);
  return row !== '' && row !== ANY_SCOPE && row === normalizeScopeValue(sessionValue);
}

/**
 * How specific a matching row is: intent exact 2 + state exact 1, so (I,S)=3 > (I,ANY)=2 >
 * (ANY,S)=1 > (ANY,ANY)=0. Returns -1 when the row does not match at all.
 */
export function scopeSpecificity(
  row: ScopedRow,
  intent: string | null | undefined,
  state: string | null | undefined
): number {
  if (!scopeMatches(row, intent, state)) return -1;
  return (isExact(row.intentCode, intent) ? 2 : 0) + (isExact(row.stateCode, state) ? 1 : 0);
}

/**
 * Orders two equally specific rows: negative when `a` should win. Typical tie-breaks: higher
 * planner_id wins, lower priority number wins, newest created_at wins.
 */
export type ScopeTieBreak<T> = (a: T, b: T) => number;

/**
 * Matching rows, most specific first; ties ordered by `tieBreak` (stable otherwise). Does not
 * filter on `enabled`: callers decide whether disabled rows take part.
 */
export function rankByScope<T extends ScopedRow>(
  rows: readonly T[],
  intent: string | null | undefined,
  state: string | null | undefined,
  tieBreak?: ScopeTieBreak<T>
): T[] {
  return rows
    .map((row, index) => ({ row, index, specificity: scopeSpecificity(row, intent, state) }))
    .filter((entry) => entry.specificity >= 0)
    .sort((a, b) => {
      if (a.specificity !== b.specificity) return b.specificity - a.specificity;
      const tie = tieBreak ? tieBreak(a.row, b.row) : 0;
      return tie !== 0 ? tie : a.index - b.index;
    })
    .map((entry) => entry.row);
}

/** The single most specific matching row, or undefined when none matches. */
export function pickMostSpecific<T extends ScopedRow>(
  rows: readonly T[],
  intent: string | null | undefined,
  state: string | null | undefined,
  tieBreak?: ScopeTieBreak<T>
): T | undefined {
  return rankByScope(rows, intent, state, tieBreak)[0];
}

/**
 * For tables keyed by something other than scope (e.g. ce_mcp_tool by tool_code): the most
 * specific matching row per key, ordered most specific first (then by `tieBreak`).
 */
export function mostSpecificPerKey<T extends ScopedRow>(
  rows: readonly T[],
  keyOf: (row: T) => string,
  intent: string | null | undefined,
  state: string | null | undefined,
  tieBreak?: ScopeTieBreak<T>
): T[] {
  const winners = new Map<string, T>();
  for (const row of rankByScope(rows, intent, state, tieBreak)) {
    const key = keyOf(row);
    if (!winners.has(key)) winners.set(key, row);
  }
  return [...winners.values()];
}
