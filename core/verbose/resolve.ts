import type { VerboseRow } from '../config/types';
import { isJsonObject, type Json, type JsonObject } from '../json';
import { jsonPathValues } from '../rules/jsonpath';
import { findsUserRegex } from '../rules/regex-cache';
import { scopeValueMatches } from '../config/scope';
import { renderTemplateLenient, type TemplateVariables } from '../templates';

/**
 * Progress messages (reference "Verbose messages", the Java engine's DbVerboseMessageResolver):
 * a step publishes (step, determinant, rule, tool, error, metadata); the best matching enabled
 * ce_verbose row renders its `message` (or `error_message` when the step failed) into a
 * VERBOSE_PROGRESS payload. No row and an error → a generic message; no row otherwise → nothing.
 */
export const VERBOSE_PROGRESS = 'VERBOSE_PROGRESS';
export const STEP_MATCH_TYPES = ['EXACT', 'REGEX', 'JSON_PATH'] as const;
export type StepMatchType = (typeof STEP_MATCH_TYPES)[number];

export interface VerboseEvent {
  stepName: string;
  determinant: string;
  ruleId?: number | null;
  toolCode?: string | null;
  error?: boolean;
  metadata?: JsonObject;
}

export interface VerboseRequest extends VerboseEvent {
  intent: string;
  state: string;
  conversationId: string;
}

/** The VERBOSE_PROGRESS payload, field for field the Java engine's VerboseStreamPayload. */
export interface VerbosePayload extends JsonObject {
  verboseId: number | null;
  eventType: typeof VERBOSE_PROGRESS;
  stepName: string;
  determinant: string;
  intent: string;
  state: string;
  ruleId: number | null;
  toolCode: string | null;
  level: 'INFO' | 'ERROR';
  text: string;
  message: string | null;
  errorMessage: string | null;
  metadata: JsonObject;
}

const blank = (value: string | null | undefined): boolean => (value ?? '').trim() === '';
const same = (a: string, b: string): boolean => a.trim().toUpperCase() === b.trim().toUpperCase();

/** A blank or unknown step_match behaves as EXACT (Java normalizeStepMatch); validation refuses unknown ones. */
export function stepMatchOf(row: Pick<VerboseRow, 'stepMatch'>): StepMatchType {
  const value = (row.stepMatch ?? '').trim().toUpperCase();
  return (STEP_MATCH_TYPES as readonly string[]).includes(value) ? (value as StepMatchType) : 'EXACT';
}

/**
 * JSON_PATH on the event metadata: nothing addressed, null, false, a blank string or "false" is no
 * match; anything else is. (Jayway in the Java engine also calls an empty filter result "[]" a
 * match; an empty result is no match here, as for rules.)
 */
function jsonPathHolds(path: string, metadata: JsonObject): boolean {
  const values = jsonPathValues(path, metadata);
  if (values.length !== 1) return values.length > 1;
  const value = values[0] as Json;
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.trim() !== '' && text.trim().toLowerCase() !== 'false';
}

function stepMatches(row: VerboseRow, request: VerboseRequest, metadata: JsonObject): boolean {
  if (blank(row.stepValue)) return true;
  const value = row.stepValue.trim();
  switch (stepMatchOf(row)) {
    case 'REGEX':
      return findsUserRegex(value, request.stepName);
    case 'JSON_PATH':
      return jsonPathHolds(value, metadata);
    default:
      return same(value, request.stepName) || same(value, 'ANY');
  }
}

function rowMatches(row: VerboseRow, request: VerboseRequest, metadata: JsonObject): boolean {
  if (!row.enabled) return false;
  if (!scopeValueMatches(row.intentCode, request.intent) || !scopeValueMatches(row.stateCode, request.state))
    return false;
  if (!blank(row.determinant) && !same(row.determinant, 'ANY') && !same(row.determinant, request.determinant))
    return false;
  if (row.ruleId !== null && row.ruleId !== (request.ruleId ?? null)) return false;
  if (!blank(row.toolCode) && (blank(request.toolCode) || !same(row.toolCode ?? '', request.toolCode ?? '')))
    return false;
  return stepMatches(row, request, metadata);
}

/** Java's score: exact intent 400, state 300, determinant 250, step 225/150/100, rule 200, tool 150, minus priority. */
function score(row: VerboseRow, request: VerboseRequest): number {
  let total = 0;
  if (!blank(row.intentCode) && same(row.intentCode, request.intent)) total += 400;
  if (!blank(row.stateCode) && same(row.stateCode, request.state)) total += 300;
  if (!blank(row.determinant) && !same(row.determinant, 'ANY') && same(row.determinant, request.determinant))
    total += 250;
  const match = stepMatchOf(row);
  if (!blank(row.stepValue)) {
    if (match === 'EXACT' && same(row.stepValue, request.stepName)) total += 225;
    else if (match === 'REGEX') total += 150;
    else if (match === 'JSON_PATH') total += 100;
  }
  if (row.ruleId !== null && row.ruleId === (request.ruleId ?? null)) total += 200;
  if (!blank(row.toolCode) && !blank(request.toolCode) && same(row.toolCode ?? '', request.toolCode ?? ''))
    total += 150;
  return total - row.priority;
}

/** The winning row: highest score; ties go to the lower priority number, then the lower id. */
export function selectVerboseRow(rows: readonly VerboseRow[], request: VerboseRequest): VerboseRow | null {
  if ([request.intent, request.state, request.stepName, request.determinant].some(blank)) return null;
  const metadata = eventMetadata(request);
  let best: VerboseRow | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (!rowMatches(row, request, metadata)) continue;
    const s = score(row, request);
    const earlier = best !== null && s === bestScore && tieBreak(row, best) < 0;
    if (s > bestScore || earlier) {
      best = row;
      bestScore = s;
    }
  }
  return best;
}

function tieBreak(a: VerboseRow, b: VerboseRow): number {
  return a.priority - b.priority || a.verboseId - b.verboseId;
}

/** The event's metadata as published, plus conversationId, stepName and determinant (Java safeMetadata). */
export function eventMetadata(request: VerboseRequest): JsonObject {
  const out = copyOf(request.metadata ?? {});
  out['conversationId'] ??= request.conversationId;
  out['stepName'] ??= request.stepName;
  out['determinant'] ??= request.determinant;
  return out;
}

/**
 * `{ ...metadata }`, built by assignment: V8 (Node 20) makes adding keys to a spread copy slow
 * (about 1.5 µs here, twice per progress event). Only a `__proto__` key, which an assignment
 * would not copy as data, takes the spread.
 */
function copyOf(metadata: JsonObject): JsonObject {
  return Object.hasOwn(metadata, '__proto__') ? { ...metadata } : Object.assign({}, metadata);
}

function render(template: string | null, vars: TemplateVariables): string | null {
  if (template === null) return null;
  try {
    return renderTemplateLenient(template, vars).text;
  } catch {
    // Validation refuses malformed templates; one that slips through shows as written.
    return template;
  }
}

function firstNonBlank(...values: (string | null)[]): string | null {
  return values.find((v) => !blank(v)) ?? null;
}

/**
 * The progress message for one event, or null when none is configured (and the event is not an
 * error). `vars` builds the template variables (session and step) and is only called when a row
 * matched; the event metadata is laid over them, also under `metadata`.
 */
export function resolveVerbose(
  rows: readonly VerboseRow[],
  request: VerboseRequest,
  vars: () => TemplateVariables
): VerbosePayload | null {
  const error = request.error === true;
  const metadata = eventMetadata(request);
  const row = selectVerboseRow(rows, request);
  const base = {
    eventType: VERBOSE_PROGRESS,
    stepName: request.stepName,
    determinant: request.determinant,
    intent: request.intent,
    state: request.state,
    ruleId: request.ruleId ?? null,
    toolCode: request.toolCode ?? null,
    level: error ? 'ERROR' : 'INFO',
  } as const;
  if (row === null) {
    if (!error) return null;
    const text = `Something went wrong while processing ${request.stepName}.`;
    return { ...base, verboseId: null, text, message: null, errorMessage: null, metadata };
  }
  const raw = error ? firstNonBlank(row.errorMessage, row.message) : firstNonBlank(row.message, row.errorMessage);
  if (raw === null) return null;
  const scope: TemplateVariables = { ...vars(), ...metadata, metadata };
  const text = render(raw, scope) ?? '';
  if (blank(text)) return null;
  return {
    ...base,
    verboseId: row.verboseId,
    text,
    message: render(row.message, scope),
    errorMessage: render(row.errorMessage, scope),
    metadata: {
      ...metadata,
      severity: metadata['severity'] ?? (error ? 'ERROR' : 'INFO'),
      theme: metadata['theme'] ?? (error ? 'danger' : 'progress'),
      icon: metadata['icon'] ?? (error ? 'warning' : 'spark'),
    },
  };
}

export function isVerbosePayload(value: Json | undefined): value is VerbosePayload {
  return isJsonObject(value) && value['eventType'] === VERBOSE_PROGRESS && typeof value['text'] === 'string';
}
