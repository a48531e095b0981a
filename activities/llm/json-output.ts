import { type Json, type JsonObject } from '../../core/json';
import { compileConfigSchema } from '../../core/json-schema';
import type { LlmJsonResult } from '../../core/llm';
import { screenOutputJson } from '../../core/text/storable-output';

/**
 * Turns a model's text into JSON and checks it against the expected schema. Models sometimes wrap
 * JSON in code fences or add a sentence around it; both are tolerated, anything else is invalid.
 * JSON that breaks the schema is returned as `unchecked` beside the error (see LlmJsonResult).
 */
export type ParsedJson = { ok: true; json: Json } | { ok: false; error: string; unchecked?: Json };

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

export function parseJsonOutput(raw: string, schema: JsonObject | undefined): ParsedJson {
  const parsed = parseLenient(raw);
  if (parsed === undefined) return { ok: false, error: 'invalid json' };
  // Storable strings and bounded nesting before anything walks it (core/text/storable-output.ts).
  const screened = screenOutputJson(parsed);
  if (!screened.ok) return { ok: false, error: `json ${screened.error}` };
  const json = screened.json;
  if (!schema) return { ok: true, json };
  const compiled = compileConfigSchema(schema);
  if ('invalid' in compiled) return { ok: false, error: `expected schema is not valid: ${compiled.invalid}` };
  const { validate } = compiled;
  if (validate(json)) return { ok: true, json };
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return { ok: false, error: `schema mismatch: ${problems.join('; ')}`, unchecked: json };
}

/** A client's answer to a JSON call: the parse of `raw` against the request's schema. */
export function jsonResult(raw: string, schema: JsonObject | undefined): LlmJsonResult {
  const parsed = parseJsonOutput(raw, schema);
  if (parsed.ok) return { ok: true, json: parsed.json, raw };
  return {
    ok: false,
    raw,
    error: parsed.error,
    ...(parsed.unchecked === undefined ? {} : { unchecked: parsed.unchecked }),
  };
}
