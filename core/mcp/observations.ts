import { isJsonObject, setOwnField, type Json, type JsonObject } from '../json';
import type { McpObservation } from './context';
import { cutText } from '../text/cut-text';

/**
 * What the planner sees of earlier tool results (§6.2, D15). Only the last N observations are
 * shown, each as a summary: the well-known status fields, a row count with a two-row preview,
 * and — unlike the Java engine — an HTTP tool's `mapped` payload, which is usually the only
 * part of an HTTP result the planner needs to decide its next step.
 */
export const SUMMARY_FIELDS = [
  'status',
  'summary',
  'message',
  'error',
  'queryCode',
  'rowCount',
  'valid',
  'canExecute',
  'selectedCase',
  'selectedPlaybook',
  'outcome',
  'finalSummary',
  'graphError',
] as const;

const MAX_TEXT_CHARS = 2000;
const FALLBACK_FIELD_COUNT = 20;
const ROW_PREVIEW = 2;

export interface CompactObservation {
  toolCode: string;
  args: JsonObject;
  status: string;
  result: Json;
}

export interface CompactedObservations {
  entries: CompactObservation[];
  json: string;
  /** Whether the raw observations were longer than the character budget. */
  compacted: boolean;
  rawChars: number;
  finalChars: number;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${cutText(text, max)}…(truncated)`;
}

function compactValue(value: Json, maxChars: number): Json {
  if (typeof value === 'string') return truncate(value, MAX_TEXT_CHARS);
  if (value !== null && typeof value === 'object') {
    const text = JSON.stringify(value);
    return text.length > maxChars ? truncate(text, maxChars) : value;
  }
  return value;
}

function summarizeObject(result: JsonObject, maxChars: number): JsonObject {
  const summary: JsonObject = {};
  for (const key of SUMMARY_FIELDS) {
    const value = result[key];
    if (value !== undefined && value !== null) summary[key] = compactValue(value, maxChars);
  }
  if (result['mapped'] !== undefined) summary['mapped'] = compactValue(result['mapped'], maxChars);
  const rows = result['rows'];
  if (Array.isArray(rows)) {
    if (summary['rowCount'] === undefined) summary['rowCount'] = rows.length;
    summary['rowsPreview'] = rows.slice(0, ROW_PREVIEW).map((row) => compactValue(row, maxChars));
  }
  if (Object.keys(summary).length > 0) return summary;
  const firstFields: JsonObject = {};
  // The tool's own keys (an upstream's `__proto__` included) are fields of the summary, never its prototype.
  for (const [key, value] of Object.entries(result).slice(0, FALLBACK_FIELD_COUNT)) {
    setOwnField(firstFields, key, compactValue(value, maxChars));
  }
  return firstFields;
}

export function summarizeResult(result: Json, maxChars: number): Json {
  if (isJsonObject(result)) return summarizeObject(result, maxChars);
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return truncate(text, maxChars);
}

/** The last `maxCount` observations, summarized; identical summaries are shown once. */
export function compactObservations(
  observations: readonly McpObservation[],
  maxCount: number,
  maxChars: number
): CompactedObservations {
  const recent = maxCount > 0 ? observations.slice(-maxCount) : [...observations];
  const rawChars = JSON.stringify(recent).length;
  const seen = new Set<string>();
  const entries: CompactObservation[] = [];
  for (const o of recent) {
    const entry = { toolCode: o.toolCode, args: o.args, status: o.status, result: summarizeResult(o.result, maxChars) };
    const signature = JSON.stringify(entry);
    if (seen.has(signature)) continue;
    seen.add(signature);
    entries.push(entry);
  }
  const json = JSON.stringify(entries);
  return { entries, json, compacted: rawChars > maxChars, rawChars, finalChars: json.length };
}

/** The `summary` field of the most recent observation that has one (duplicate-call answer). */
export function latestSummary(observations: readonly McpObservation[]): string | null {
  for (let i = observations.length - 1; i >= 0; i--) {
    const result = observations[i]?.result;
    const summary = isJsonObject(result) ? result['summary'] : undefined;
    if (typeof summary === 'string' && summary.trim() !== '') return summary;
    const mapped = isJsonObject(result) && isJsonObject(result['mapped']) ? result['mapped']['summary'] : undefined;
    if (typeof mapped === 'string' && mapped.trim() !== '') return mapped;
  }
  return null;
}
