import type { ValidateFunction } from 'ajv';
import { canonicalJson, type Json, type JsonObject } from '../../core/json';
import { newConfigSchemaAjv } from '../../core/json-schema';

/**
 * Turns a model's text into JSON and checks it against the expected schema. Models sometimes wrap
 * JSON in code fences or add a sentence around it; both are tolerated, anything else is invalid.
 */
export type ParsedJson = { ok: true; json: Json } | { ok: false; error: string };

const FENCE = /^```[a-zA-Z]*\s*([\s\S]*?)\s*```$/;

function parseLenient(raw: string): Json | undefined {
  const text = raw.trim();
  const unfenced = FENCE.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(unfenced) as Json;
  } catch {
    const start = unfenced.search(/[{[]/);
    const end = Math.max(unfenced.lastIndexOf('}'), unfenced.lastIndexOf(']'));
    if (start < 0 || end <= start) return undefined;
    try {
      return JSON.parse(unfenced.slice(start, end + 1)) as Json;
    } catch {
      return undefined;
    }
  }
}

const ajv = newConfigSchemaAjv();
const compiled = new Map<string, ValidateFunction>();

function validatorFor(schema: JsonObject): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

export function parseJsonOutput(raw: string, schema: JsonObject | undefined): ParsedJson {
  const json = parseLenient(raw);
  if (json === undefined) return { ok: false, error: 'invalid json' };
  if (!schema) return { ok: true, json };
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (err) {
    return { ok: false, error: `expected schema is not valid: ${(err as Error).message}` };
  }
  if (validate(json)) return { ok: true, json };
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return { ok: false, error: `schema mismatch: ${problems.join('; ')}` };
}
