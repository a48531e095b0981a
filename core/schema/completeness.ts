import { isJsonObject, type Json, type JsonObject } from '../json';

export interface SchemaStatus {
  complete: boolean;
  hasAnyValue: boolean;
  missingFields: string[];
  missingFieldOptions: Record<string, string[]>;
}

export type FieldDetail = { description: string | null; type: Json; enumOptions: string[]; title?: string };

const propertiesOf = (schema: JsonObject): JsonObject =>
  isJsonObject(schema['properties']) ? schema['properties'] : {};
const requiredOf = (schema: JsonObject): string[] =>
  Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : [];

function typeName(prop: JsonObject): string | null {
  const type = prop['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type))
    return (type.find((t) => typeof t === 'string' && t !== 'null') as string | undefined) ?? null;
  return null;
}

function enumOptions(prop: JsonObject): string[] {
  return Array.isArray(prop['enum']) ? prop['enum'].map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : [];
}

/** Whether a value counts as provided for its property (§5.1: strings non-blank, arrays minItems, objects recurse). */
export function hasMeaningfulValue(value: Json | undefined, prop: JsonObject): boolean {
  if (value === undefined || value === null) return false;
  const type = typeName(prop);
  if (type === 'string' || typeof value === 'string') return typeof value !== 'string' || value.trim() !== '';
  if (type === 'array' || Array.isArray(value)) {
    const minItems = typeof prop['minItems'] === 'number' ? prop['minItems'] : 0;
    return Array.isArray(value) && value.length >= Math.max(minItems, 1);
  }
  if (type === 'object' && isJsonObject(value)) return missingRequired(prop, value).length === 0;
  return true;
}

function missingRequired(schema: JsonObject, doc: JsonObject): string[] {
  const props = propertiesOf(schema);
  return requiredOf(schema).filter((field) => {
    const prop = props[field];
    return !hasMeaningfulValue(doc[field], isJsonObject(prop) ? prop : {});
  });
}

function anyValue(schema: JsonObject, doc: JsonObject): boolean {
  return Object.entries(propertiesOf(schema)).some(([field, prop]) => {
    const value = doc[field];
    if (value === undefined || value === null) return false;
    if (typeof value === 'string') return value.trim() !== '';
    if (Array.isArray(value)) return value.length > 0;
    if (isJsonObject(value)) return isJsonObject(prop) ? anyValue(prop, value) || Object.keys(value).length > 0 : true;
    return true;
  });
}

/** Completeness of the context against a JSON schema (required fields only; numbers not type-checked). */
export function schemaStatus(schema: JsonObject, context: JsonObject): SchemaStatus {
  const missingFields = missingRequired(schema, context);
  const props = propertiesOf(schema);
  const missingFieldOptions: Record<string, string[]> = {};
  for (const field of missingFields) {
    const prop = props[field];
    const options = isJsonObject(prop) ? enumOptions(prop) : [];
    if (options.length > 0) missingFieldOptions[field] = options;
  }
  return {
    complete: missingFields.length === 0,
    hasAnyValue: anyValue(schema, context),
    missingFields,
    missingFieldOptions,
  };
}

/** `schema_field_details`: description, type and enum options per property. */
export function schemaFieldDetails(schema: JsonObject): Record<string, FieldDetail> {
  const out: Record<string, FieldDetail> = {};
  for (const [field, prop] of Object.entries(propertiesOf(schema))) {
    if (!isJsonObject(prop)) continue;
    out[field] = {
      description: typeof prop['description'] === 'string' ? prop['description'] : null,
      type: prop['type'] ?? null,
      enumOptions: enumOptions(prop),
      ...(typeof prop['title'] === 'string' && prop['title'].trim() !== '' ? { title: prop['title'] } : {}),
    };
  }
  return out;
}
