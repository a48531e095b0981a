import type { OutputSchemaRow } from '../config/types';
import { P } from '../params/keys';
import type { Session } from '../session';
import { schemaFieldDetails, schemaStatus, type SchemaStatus } from './completeness';
import { schemaSubset } from './subset';

/**
 * Publishes a schema's completeness into the session (facts, input params for prompts, intent
 * lock): an incomplete schema locks the intent so the next message keeps filling it.
 */
export function applySchemaStatus(session: Session, schema: OutputSchemaRow): SchemaStatus {
  const status = schemaStatus(schema.jsonSchema, session.context);
  session.resolvedSchema = { schemaId: schema.schemaId, intentCode: schema.intentCode, stateCode: schema.stateCode };
  session.schemaComplete = status.complete;
  session.hasAnySchemaValue = status.hasAnyValue;
  session.missingRequiredFields = status.missingFields;
  session.missingFieldOptions = status.missingFieldOptions;
  session.intentLocked = !status.complete;
  session.intentLockReason = status.complete ? null : 'SCHEMA_INCOMPLETE';
  const p = session.inputParams;
  p[P.missingFields] = status.missingFields;
  p['missing_field_options'] = status.missingFieldOptions;
  p['schema_field_details'] = schemaFieldDetails(schema.jsonSchema);
  p['schema_description'] = schema.description ?? '';
  p[P.schemaId] = schema.schemaId;
  p['schema_json'] = schemaSubset(session.context, schema.jsonSchema);
  return status;
}

/** No schema applies: unlock and clear the schema facts. */
export function clearSchemaStatus(session: Session): void {
  session.resolvedSchema = null;
  session.schemaComplete = false;
  session.hasAnySchemaValue = false;
  session.missingRequiredFields = [];
  session.missingFieldOptions = {};
  session.intentLocked = false;
  session.intentLockReason = null;
}
