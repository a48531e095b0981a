import { type Json, type JsonObject } from '../../core/json';
import { compileConfigSchema } from '../../core/json-schema';
import type { LlmJsonResult } from '../../core/llm';
import { screenOutputJson } from '../../core/text/storable-output';

/**
 * Turns a model's text into JSON and checks it against the expected schema. Models sometimes wrap
 * JSON in code fences or add a sentence around it; both are tolerated, anything else is invalid.
 * JSON that breaks the schema is returned as `unchecked` beside the error (see LlmJsonResult).
 */
export type ParsedJson = { ok: true; json: Json } | ({ ok: false; unchecked?: Json } & JsonOutputProblem);

/**
 * What is wrong with a model's JSON: `error` says it whole, `kind` only its kind ("schema mismatch"), without the
 * paths of a schema mismatch, which name the keys the model wrote and so may quote the conversation: a line that must
 * not (observability/llm.ts, with PAYLOAD_ENCRYPTION_KEYS set) says the kind.
 */
export interface JsonOutputProblem {
  error: string;
  kind: string;
}

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
  if (parsed === undefined) return { ok: false, error: 'invalid json', kind: 'invalid json' };
  // Storable strings and bounded nesting before anything walks it (core/text/storable-output.ts).
  const screened = screenOutputJson(parsed);
  // The screen's reasons are the engine's own words (nested deeper than 64 levels), nothing the model wrote.
  if (!screened.ok) return { ok: false, error: `json ${screened.error}`, kind: `json ${screened.error}` };
  const json = screened.json;
  if (!schema) return { ok: true, json };
  const compiled = compileConfigSchema(schema);
  if ('invalid' in compiled) {
    return {
      ok: false,
      error: `expected schema is not valid: ${compiled.invalid}`,
      kind: 'expected schema is not valid',
    };
  }
  const { validate } = compiled;
  if (validate(json)) return { ok: true, json };
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  return { ok: false, error: `schema mismatch: ${problems.join('; ')}`, kind: 'schema mismatch', unchecked: json };
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
