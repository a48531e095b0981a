import type { JsonObject } from './json';

/**
 * One audit event. Steps return them in order; the activity that emits them writes them to
 * ce_audit under `<turn id>/<call key>/<index>` so a retried activity writes no duplicates.
 * `payload` excludes `_meta`, which the writer adds from the session.
 */
export interface AuditRecord {
  stage: string;
  payload: JsonObject;
}

export function audit(stage: string, payload: JsonObject = {}): AuditRecord {
  return { stage, payload };
}
