import { normalizeScopeValue, pickMostSpecific, scopeMatches } from '../config/scope';
import type { ConfigRows, ConfigSnapshot, OutputSchemaRow, PromptTemplateRow } from '../config/types';
import type { Json } from '../json';
import type { Session } from '../session';
import { compareCodePoints } from '../text/compare-code-points';

/** The output_format of the prompt templates that extract a schema's fields. */
export const EXTRACTION_PROMPT_FORMAT = 'SCHEMA_JSON';

/** A schema row extraction uses: of type SCHEMA_JSON (or none). */
export const isSchemaJson = (row: OutputSchemaRow) => {
  const type = normalizeScopeValue(row.schemaType);
  return type === '' || type === 'SCHEMA_JSON';
};

function schemaIdParam(value: Json | undefined): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
  return null;
}

const byPriority = (a: OutputSchemaRow, b: OutputSchemaRow) => a.priority - b.priority || a.schemaId - b.schemaId;

/** The enabled SCHEMA_JSON schema scoped to the session's intent/state (most specific, then priority). */
export function scopedSchema(snapshot: ConfigSnapshot, intent: string, state: string): OutputSchemaRow | undefined {
  if (intent.trim() === '') return undefined;
  const rows = snapshot.rows.outputSchemas.filter((r) => r.enabled && isSchemaJson(r));
  return pickMostSpecific(rows, intent, state, byPriority);
}

function persistedSchema(snapshot: ConfigSnapshot, session: Session): OutputSchemaRow | undefined {
  const id = schemaIdParam(session.inputParams['schema_id']);
  if (id === null) return undefined;
  return snapshot.rows.outputSchemas.find((r) => r.schemaId === id && r.enabled && isSchemaJson(r));
}

function sessionSchema(snapshot: ConfigSnapshot, session: Session): OutputSchemaRow | undefined {
  const ref = session.resolvedSchema;
  return ref ? snapshot.rows.outputSchemas.find((r) => r.schemaId === ref.schemaId) : undefined;
}

/**
 * Schema for extraction (§5.1, D10): the schema already resolved this turn, else the one scoped to
 * the current intent/state. A persisted `schema_id` counts only while its own scope still matches,
 * so a finished flow (or another intent) never re-runs an old extraction.
 */
export function schemaForExtraction(snapshot: ConfigSnapshot, session: Session): OutputSchemaRow | undefined {
  const { intent, state } = session;
  const current = sessionSchema(snapshot, session);
  if (current) return current;
  const persisted = persistedSchema(snapshot, session);
  if (persisted && scopeMatches(persisted, intent, state)) return persisted;
  return scopedSchema(snapshot, intent, state);
}

/**
 * Schema for confirm/edit/retry (§5.3): as for extraction, but the persisted schema also counts in
 * later states of its own intent (CONFIRMATION edits the fields ELIGIBILITY_GATE collected).
 */
export function schemaForCorrection(snapshot: ConfigSnapshot, session: Session): OutputSchemaRow | undefined {
  const scoped = schemaForExtraction(snapshot, session);
  if (scoped) return scoped;
  const persisted = persistedSchema(snapshot, session);
  const sameIntent = persisted && normalizeScopeValue(persisted.intentCode) === normalizeScopeValue(session.intent);
  return sameIntent ? persisted : undefined;
}

const newestFirst = (a: PromptTemplateRow, b: PromptTemplateRow) =>
  compareCodePoints(b.createdAt, a.createdAt) || b.templateId - a.templateId;

/** The most specific enabled prompt template of an output format (newest wins a tie). */
export function templateFor(
  snapshot: { rows: Pick<ConfigRows, 'promptTemplates'> },
  outputFormat: string,
  intent: string,
  state: string
): PromptTemplateRow | undefined {
  const format = normalizeScopeValue(outputFormat);
  const rows = snapshot.rows.promptTemplates.filter((t) => t.enabled && normalizeScopeValue(t.outputFormat) === format);
  return pickMostSpecific(rows, intent, state, newestFirst);
}

/**
 * The SCHEMA_JSON prompt that extracts a schema's fields in an intent/state: the runtime asks it for the session's
 * scope, and validation for each schema's own scope (a schema no template covers fails every turn that reaches it).
 */
export function extractionTemplate(
  snapshot: { rows: Pick<ConfigRows, 'promptTemplates'> },
  intent: string,
  state: string
): PromptTemplateRow | undefined {
  return templateFor(snapshot, EXTRACTION_PROMPT_FORMAT, intent, state);
}
