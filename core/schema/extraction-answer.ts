import type { ErrorObject } from 'ajv';
import { isJsonObject, type Json, type JsonObject } from '../json';
import { isModelProtectedContextKey } from '../context/engine-paths';
import { compileConfigSchema } from '../json-schema';
import { meaningful, UNSAFE_KEY } from './merge';

/** A field of the answer that is not stored, and why (the schema's complaint). */
export type DroppedField = { field: string; reason: string };
/** A field stored in the type its schema declares, converted from what the model wrote. */
export type ConvertedField = { field: string; from: Json; to: Json };

/** `contextKeysIgnored`: the protected context keys (MODEL_PROTECTED_CONTEXT_KEYS) the answer wrote, none stored. */
export type AcceptedExtraction = {
  fields: JsonObject;
  dropped: DroppedField[];
  converted: ConvertedField[];
  contextKeysIgnored: string[];
};

/** A JSON number literal, as the model would have written it without the quotes. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

const fieldName = (path: readonly string[]): string => path.join('.');

function typesOf(schema: JsonObject): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * The only conversions, both lossless and plain from the declared type: a string holding a JSON number
 * for a number/integer field ("21" → 21; an integer must be exact, so no more than 2^53), and an
 * integer for a string field (1234 → "1234", ids). Anything else of the wrong kind is dropped.
 */
function plainConversion(schema: JsonObject, value: Json): Json | undefined {
  const types = typesOf(schema);
  const numeric = types.includes('number') || types.includes('integer');
  if (typeof value === 'string' && numeric && !types.includes('string') && JSON_NUMBER.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n) || (types.includes('number') && Number.isFinite(n) && !Number.isInteger(n))) return n;
  }
  if (typeof value === 'number' && types.includes('string') && !numeric && Number.isSafeInteger(value)) {
    return String(value);
  }
  return undefined;
}

const subSchema = (schema: JsonObject, keyword: string, key?: string): JsonObject | undefined => {
  const node = schema[keyword];
  if (key === undefined) return isJsonObject(node) ? node : undefined;
  return isJsonObject(node) && Object.hasOwn(node, key) && isJsonObject(node[key]) ? node[key] : undefined;
};

/** Copies the answer without empty values (the merge drops them anyway) and with plain conversions applied. */
function prepared(schema: JsonObject | undefined, value: Json, path: string[], out: AcceptedExtraction): Json {
  if (isJsonObject(value)) {
    const copy: JsonObject = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === UNSAFE_KEY) out.dropped.push({ field: fieldName([...path, key]), reason: 'is not a field name' });
      if (key === UNSAFE_KEY || !meaningful(item)) continue;
      copy[key] = prepared(schema && subSchema(schema, 'properties', key), item, [...path, key], out);
    }
    return copy;
  }
  const items = schema && subSchema(schema, 'items');
  if (Array.isArray(value)) return value.map((item, i) => prepared(items, item, [...path, String(i)], out));
  const converted = schema ? plainConversion(schema, value) : undefined;
  if (converted === undefined) return value;
  out.converted.push({ field: fieldName(path), from: value, to: converted });
  return converted;
}

const unescapePointer = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The field an error costs: its value's path, cut at the first array (an array is stored whole, so a bad
 * item drops the array), or the extra key of an additionalProperties error. Empty: the answer itself.
 */
function fieldAt(fields: JsonObject, error: ErrorObject): { path: string[]; reason: string } {
  const segments = error.instancePath === '' ? [] : error.instancePath.slice(1).split('/').map(unescapePointer);
  const path: string[] = [];
  let node: Json = fields;
  for (const segment of segments) {
    if (!isJsonObject(node) || !Object.hasOwn(node, segment)) break;
    path.push(segment);
    node = node[segment] as Json;
    if (Array.isArray(node)) break;
  }
  const rest = segments.slice(path.length);
  const extra = error.params['additionalProperty'];
  if (error.keyword === 'additionalProperties' && rest.length === 0 && typeof extra === 'string') {
    return { path: [...path, extra], reason: 'is not a field of the schema' };
  }
  const where = rest.length === 0 ? '' : `/${rest.join('/')} `;
  return { path, reason: `${where}${error.message ?? 'is invalid'}` };
}

/** Deletes the field at `path`, and the objects it leaves empty. */
function removeAt(fields: JsonObject, path: readonly string[]): void {
  const parents: JsonObject[] = [fields];
  for (const segment of path.slice(0, -1)) parents.push((parents.at(-1) as JsonObject)[segment] as JsonObject);
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const parent = parents[depth] as JsonObject;
    delete parent[path[depth] as string];
    if (depth === 0 || Object.keys(parent).length > 0) return;
  }
}

function dropAll(fields: JsonObject, dropped: DroppedField[], reason: string): void {
  for (const field of Object.keys(fields)) {
    dropped.push({ field, reason });
    delete fields[field];
  }
}

/** The fields the schema's errors refuse, each once with all its reasons. */
function refusedFields(fields: JsonObject, errors: readonly ErrorObject[]): { path: string[]; reasons: string[] }[] {
  const refused = new Map<string, { path: string[]; reasons: string[] }>();
  for (const error of errors) {
    const { path, reason } = fieldAt(fields, error);
    const entry = refused.get(JSON.stringify(path)) ?? { path, reasons: [] };
    if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
    refused.set(JSON.stringify(path), entry);
  }
  // Outer fields first, so a field inside one already dropped is not dropped again.
  return [...refused.values()].sort((a, b) => a.path.length - b.path.length);
}

const within = (path: readonly string[], outer: readonly string[]): boolean =>
  outer.length <= path.length && outer.every((segment, i) => path[i] === segment);

/** Drops what the schema refuses until the rest passes; every round removes at least one field, or all. */
function dropRefused(schema: JsonObject, fields: JsonObject, dropped: DroppedField[]): void {
  const compiled = compileConfigSchema(schema);
  if ('invalid' in compiled) return dropAll(fields, dropped, `schema is not valid: ${compiled.invalid}`);
  while (!compiled.validate(fields)) {
    const refused = refusedFields(fields, compiled.validate.errors ?? []);
    const whole = refused.find((r) => r.path.length === 0);
    if (whole || refused.length === 0) return dropAll(fields, dropped, whole?.reasons.join('; ') ?? 'is invalid');
    const removed: string[][] = [];
    for (const { path, reasons } of refused) {
      if (removed.some((outer) => within(path, outer))) continue;
      removeAt(fields, path);
      removed.push(path);
      dropped.push({ field: fieldName(path), reason: reasons.join('; ') });
    }
  }
}

/**
 * The answer without the top-level keys no model writes (`mcp`, `intent_lock`, …, `approval`): the merge is deep,
 * so a model could otherwise forge planner observations, the intent lock, or the approval of a sensitive action.
 * Java merges them; this engine ignores them even when a schema declares one (config validation refuses that).
 * Undeclared other keys stay, as in Java.
 */
function withoutProtectedKeys(answer: JsonObject, out: AcceptedExtraction): JsonObject {
  out.contextKeysIgnored.push(...Object.keys(answer).filter(isModelProtectedContextKey));
  // fromEntries defines each key as an own field, so a `__proto__` key reaches prepared() to be reported.
  return Object.fromEntries(Object.entries(answer).filter(([key]) => !isModelProtectedContextKey(key)));
}

/**
 * What of an extraction answer may be stored (§5.1, hostile output): engine-owned keys ignored, empty values
 * left out as the merge leaves them, plain conversions applied, and each field the answer schema
 * (extractionAnswerSchema) still refuses dropped alone, so the rest is kept and completeness reports what is
 * missing.
 */
export function acceptExtraction(answerSchema: JsonObject, answer: JsonObject): AcceptedExtraction {
  const out: AcceptedExtraction = { fields: {}, dropped: [], converted: [], contextKeysIgnored: [] };
  out.fields = prepared(answerSchema, withoutProtectedKeys(answer, out), [], out) as JsonObject;
  dropRefused(answerSchema, out.fields, out.dropped);
  return out;
}
