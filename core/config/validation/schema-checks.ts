import type Ajv from 'ajv';
import { MODEL_PROTECTED_CONTEXT_KEYS, isModelProtectedContextKey } from '../../context/engine-paths';
import { canonicalJson, isJsonObject, type Json, type JsonObject } from '../../json';
import { newConfigSchemaAjv } from '../../json-schema';
import { checkUserRegex } from '../../text/regex';
import { EXTRACTION_PROMPT_FORMAT, extractionTemplate, isSchemaJson } from '../../schema/resolve';
import { SCHEMA_TYPES, oneOf } from '../vocabulary';
import type { ValidationContext } from './context';

// Compiling is the slow part of validation and schemas rarely change between reloads. Enough entries for a large
// deployment's schemas (one per intent and state, per tool, per response), so that a reload after a one-row edit
// compiles only what changed; past that the oldest go first, never all at once.
const COMPILE_RESULTS_KEPT = 2_000;
const compileResults = new Map<string, string | null>();

const newCompiler = (): Ajv => newConfigSchemaAjv({ logger: false });

// A new instance compiles the draft-07 meta-schema first, which costs more than most config schemas
// (seeding every pack spent ~0.3 s on it). Schemas without an `$id` share one instance and are removed
// from it after compiling, so nothing of one is seen by the next; a schema with an `$id` gets its own,
// because two config rows may legitimately reuse the same `$id`.
let shared: Ajv | undefined;

function compileReason(schema: JsonObject): string | null {
  const key = canonicalJson(schema);
  const cached = compileResults.get(key);
  if (cached !== undefined) return cached;
  const ajv = key.includes('"$id"') ? newCompiler() : (shared ??= newCompiler());
  let reason: string | null = null;
  try {
    ajv.compile(schema);
  } catch (err) {
    reason = `is not a valid JSON Schema: ${(err as Error).message}`;
  } finally {
    if (ajv === shared) ajv.removeSchema(schema);
  }
  if (compileResults.size >= COMPILE_RESULTS_KEPT) compileResults.delete(compileResults.keys().next().value as string);
  compileResults.set(key, reason);
  return reason;
}

/**
 * The first `pattern` (or `patternProperties` key) in a schema that checkUserRegex refuses: arguments and
 * extracted fields are matched against it on every call, on the author-regex matcher (newConfigSchemaAjv).
 * Checked before compiling, so the author reads the pattern's own reason rather than Ajv's wrapping of it.
 */
function unsafePattern(node: Json, depth = 0): string | null {
  if (depth > 64 || node === null || typeof node !== 'object') return null;
  const children = Array.isArray(node) ? node : Object.values(node);
  if (!Array.isArray(node)) {
    const patterns = [
      ...(typeof node['pattern'] === 'string' ? [node['pattern']] : []),
      ...(isJsonObject(node['patternProperties']) ? Object.keys(node['patternProperties']) : []),
    ];
    for (const pattern of patterns) {
      const reason = checkUserRegex(pattern);
      if (reason !== null) return reason;
    }
  }
  for (const child of children) {
    const reason = unsafePattern(child, depth + 1);
    if (reason !== null) return reason;
  }
  return null;
}

/** Null when `schema` is a usable JSON Schema (draft-07, as ajv compiles it), else the reason. */
export function checkJsonSchema(schema: Json, options: { requireObject: boolean }): string | null {
  if (!isJsonObject(schema)) return 'must be a JSON object (a JSON Schema)';
  const reason = unsafePattern(schema) ?? compileReason(schema);
  if (reason !== null) return reason;
  if (!options.requireObject) return null;
  if (schema.type !== 'object') return 'must describe an object ("type": "object")';
  const properties = schema.properties ?? {};
  if (!isJsonObject(properties)) return '"properties" must be an object';
  const required = Array.isArray(schema.required) ? schema.required : [];
  const undeclared = required.filter((name) => typeof name !== 'string' || !Object.hasOwn(properties, name));
  return undeclared.length > 0 ? `requires fields that "properties" does not declare: ${undeclared.join(', ')}` : null;
}

/**
 * Null unless the schema declares a field at a context key no model writes: extracted fields are stored at
 * `context.<field>`, where `mcp`, `intent_lock`, … hold the engine's own state and `approval` the consumer's,
 * and the extraction never writes those keys (core/schema/extraction-answer.ts), so the field could never be filled.
 */
function protectedKeyFieldReason(schema: Json): string | null {
  const properties = isJsonObject(schema) && isJsonObject(schema['properties']) ? schema['properties'] : {};
  const clashes = Object.keys(properties).filter(isModelProtectedContextKey);
  if (clashes.length === 0) return null;
  return (
    `json_schema declares ${clashes.map((c) => `"${c}"`).join(', ')}, a context key no model writes ` +
    `(${MODEL_PROTECTED_CONTEXT_KEYS.join(', ')}): extracted fields are stored at context.<field>, so rename the field`
  );
}

export function checkSchemas(ctx: ValidationContext): void {
  for (const s of ctx.rows.outputSchemas) {
    if (!s.enabled) continue;
    if (!oneOf(SCHEMA_TYPES, s.schemaType)) {
      ctx.sink.violation(
        'ce_output_schema',
        s.schemaId,
        `schema_type "${s.schemaType}" is not supported (use SCHEMA_JSON)`
      );
    }
    const reason = checkJsonSchema(s.jsonSchema, { requireObject: true });
    if (reason !== null) ctx.sink.violation('ce_output_schema', s.schemaId, `json_schema ${reason}`);
    const clash = protectedKeyFieldReason(s.jsonSchema);
    if (clash !== null) ctx.sink.violation('ce_output_schema', s.schemaId, clash);
    if (isSchemaJson(s) && ctx.has('promptTemplates') && !extractionTemplate(ctx, s.intentCode, s.stateCode)) {
      ctx.sink.violation(
        'ce_output_schema',
        s.schemaId,
        `has no enabled ce_prompt_template with output_format=${EXTRACTION_PROMPT_FORMAT} for intent ` +
          `${s.intentCode} / state ${s.stateCode} (or ANY): its fields are extracted with that prompt, so every ` +
          'turn that reaches the schema would fail with PROMPT_TEMPLATE_MISSING'
      );
    }
  }
  for (const r of ctx.rows.responses) {
    if (!r.enabled || r.jsonSchema === null) continue;
    const reason = checkJsonSchema(r.jsonSchema, { requireObject: false });
    if (reason !== null) ctx.sink.violation('ce_response', r.responseId, `json_schema ${reason}`);
  }
  for (const d of ctx.rows.mcpDbTools) {
    if (d.paramSchema === null) continue;
    const reason = checkJsonSchema(d.paramSchema, { requireObject: true });
    if (reason !== null) ctx.sink.violation('ce_mcp_db_tool', d.toolId, `param_schema ${reason}`);
  }
}

/** Shared by jsonb shape checks. */
export function isStringArray(value: Json | undefined): value is string[] {
  return Array.isArray(value) && value.every((x) => typeof x === 'string');
}

export function isStringMap(value: Json | null): boolean {
  return isJsonObject(value) && Object.values(value).every((x) => typeof x === 'string');
}
