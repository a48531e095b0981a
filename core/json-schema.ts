import Ajv, { type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { canonicalJson, type Json } from './json';
import { schemaPatternEngine } from './text/regex';

/**
 * An Ajv for JSON Schemas from config rows: formats known; strict mode off, as config schemas carry keywords Ajv
 * does not know (descriptions, examples), while every keyword it knows is enforced; and `pattern` run on the
 * author-regex matcher (RE2, bounded text, see core/text/regex.ts), not on RegExp, which can backtrack for minutes
 * on one argument.
 */
export function newConfigSchemaAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, ...options, code: { regExp: schemaPatternEngine } });
  addFormats(ajv);
  return ajv;
}

/** A compiled schema, or why it does not compile. */
export type CompiledSchema = { validate: ValidateFunction } | { invalid: string };

// Schemas rarely change between calls; compiling is the slow part. Bounded: schemas come from config.
const compiled = new Map<string, CompiledSchema>();

/** Compiles a config schema once per content; a fresh instance each, as two schemas may reuse the same $id. */
export function compileConfigSchema(schema: Json): CompiledSchema {
  const key = canonicalJson(schema);
  const cached = compiled.get(key);
  if (cached !== undefined) return cached;
  let result: CompiledSchema;
  try {
    result = { validate: newConfigSchemaAjv({ logger: false }).compile(schema as object) };
  } catch (err) {
    result = { invalid: (err as Error).message };
  }
  if (compiled.size >= 500) compiled.clear();
  compiled.set(key, result);
  return result;
}
