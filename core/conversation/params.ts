import { setOwnField, type JsonObject } from '../json';
import { REQUEST_SCOPED_PARAMS } from '../params/keys';
import { safeInputParams } from '../params/safe';

/** Persisted params carried into a new turn: request-scoped ones are dropped (D10). Keys are the client's: own fields. */
export function carriedParams(persisted: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(persisted)) {
    if (!REQUEST_SCOPED_PARAMS.includes(key) && key !== 'droppedSystemPromptVars') setOwnField(out, key, value);
  }
  return out;
}

/** Request params win; persisted params fill the rest (never overriding the request). */
export function mergeTurnParams(persisted: JsonObject, request: JsonObject): JsonObject {
  return { ...carriedParams(persisted), ...request };
}

/** What input_params_json stores at commit: safe params, without request-scoped ones. */
export function paramsToPersist(inputParams: JsonObject): JsonObject {
  return carriedParams(safeInputParams(inputParams));
}
