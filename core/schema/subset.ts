import type { ConfigSnapshot, OutputSchemaRow } from '../config/types';
import { isJsonObject, setOwnField, type JsonObject } from '../json';
import type { Session } from '../session';

/** The output schema row the session resolved (by id), if any. */
export function resolvedSchemaRow(snapshot: ConfigSnapshot, session: Session): OutputSchemaRow | undefined {
  const ref = session.resolvedSchema;
  if (!ref) return undefined;
  return snapshot.rows.outputSchemas.find((s) => s.schemaId === ref.schemaId);
}

/** Property names declared by a JSON schema (top level). */
export function schemaPropertyNames(jsonSchema: JsonObject): string[] {
  const props = jsonSchema['properties'];
  return isJsonObject(props) ? Object.keys(props) : [];
}

/** The part of the context that the schema describes (facts `schemaJson`, prompt var `schema`). */
export function schemaSubset(context: JsonObject, jsonSchema: JsonObject | undefined): JsonObject {
  if (!jsonSchema) return {};
  const out: JsonObject = {};
  // A field named like an Object.prototype member (`constructor`) is the context's own or absent, never inherited.
  for (const name of schemaPropertyNames(jsonSchema)) {
    const value = Object.hasOwn(context, name) ? context[name] : undefined;
    if (value !== undefined) setOwnField(out, name, value);
  }
  return out;
}

export function sessionSchemaSubset(snapshot: ConfigSnapshot | undefined, session: Session): JsonObject {
  if (!snapshot) return {};
  return schemaSubset(session.context, resolvedSchemaRow(snapshot, session)?.jsonSchema);
}
