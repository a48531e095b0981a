import { isJsonObject, setOwnField, type Json, type JsonObject } from '../json';

/** Whether an extracted value counts: null, blank text and empty arrays are what a model says for "not given". */
export function meaningful(value: Json): boolean {
  if (value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/**
 * `__proto__` is the one key whose assignment is not a plain write: `target['__proto__'] = x` would set
 * the target's prototype, and reading it yields Object.prototype, which a deep merge would then write into
 * for every object in the process. A model's answer can carry the key (JSON.parse keeps it as a field).
 */
export const UNSAFE_KEY = '__proto__';

function mergeInto(target: JsonObject, patch: JsonObject): boolean {
  let changed = false;
  for (const [key, value] of Object.entries(patch)) {
    if (key === UNSAFE_KEY || !meaningful(value)) continue;
    const existing = Object.hasOwn(target, key) ? target[key] : undefined;
    if (isJsonObject(value) && isJsonObject(existing)) {
      changed = mergeInto(existing, value) || changed;
    } else {
      target[key] = JSON.parse(JSON.stringify(value)) as Json;
      changed = true;
    }
  }
  return changed;
}

/**
 * Merges an extraction into the context (§5.1): null, blank and empty-array values are dropped,
 * objects deep-merge, scalars and arrays overwrite. Returns whether anything was taken over.
 */
export function mergeExtraction(context: JsonObject, extracted: JsonObject): boolean {
  return mergeInto(context, extracted);
}

/** Fills schema fields that are empty in the context from same-named input params. */
export function seedFromInputParams(context: JsonObject, fields: readonly string[], params: JsonObject): void {
  for (const field of fields) {
    const current = Object.hasOwn(context, field) ? context[field] : undefined;
    const seed = Object.hasOwn(params, field) ? params[field] : undefined;
    if ((current === undefined || current === null || current === '') && seed !== undefined && meaningful(seed)) {
      setOwnField(context, field, seed);
    }
  }
}

function relaxedProperties(properties: JsonObject): JsonObject {
  const relaxed: JsonObject = {};
  for (const [field, prop] of Object.entries(properties)) {
    if (!isJsonObject(prop) || field === UNSAFE_KEY) continue;
    const copy: JsonObject = { ...prop };
    delete copy['enum'];
    if (typeof copy['type'] === 'string') copy['type'] = [copy['type'], 'null'];
    else if (Array.isArray(copy['type']) && !copy['type'].includes('null')) copy['type'] = [...copy['type'], 'null'];
    if (isJsonObject(copy['properties'])) {
      copy['properties'] = relaxedProperties(copy['properties']);
      delete copy['required'];
    }
    relaxed[field] = copy;
  }
  return relaxed;
}

/**
 * The schema the extraction answer is checked against: every property may be null (a model says
 * null for what the message does not contain) and nothing is required, in nested objects too
 * (completeness is computed separately, so a partial answer is normal). Definitions stay, for `$ref`.
 */
export function extractionAnswerSchema(schema: JsonObject): JsonObject {
  const props = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const definitions: JsonObject = {};
  for (const key of ['$defs', 'definitions']) if (isJsonObject(schema[key])) definitions[key] = schema[key];
  return { type: 'object', properties: relaxedProperties(props), ...definitions };
}
