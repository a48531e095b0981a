import { toolCodeKey } from '../config/vocabulary';
import type { ConfigSnapshot } from '../config/types';
import type { McpDbToolRow, McpHttpToolRow, McpToolRow } from '../config/tool-rows';
import { isJsonObject, type Json, type JsonObject } from '../json';
import { identifierPlaceholders } from './db-identifiers';
import { SemanticTool } from './constants';

/**
 * Every tool's input JSON Schema (issue #21): what the planner is shown and what a call's
 * arguments are checked against before the tool runs. A DB tool's `param_schema` and an HTTP
 * tool's `input_schema` are used as written; without one, the schema is derived from the
 * arguments the tool's templates read, so a tool never takes an argument it does not use.
 * `additionalProperties` is false wherever a schema declares properties and does not say
 * otherwise: an argument the author did not declare is refused, never forwarded.
 */

/** Longest string an argument of a derived schema (one that no author wrote) may carry. */
export const DERIVED_ARG_MAX_LENGTH = 2000;

const SCALAR_ARG: JsonObject = {
  type: ['string', 'number', 'integer', 'boolean', 'null'],
  maxLength: DERIVED_ARG_MAX_LENGTH,
};
const TEXT_ARG: JsonObject = { type: 'string', maxLength: 20000 };

/** The engine's own DB tools; the semantic chain's arguments are filled in by the engine (§7.4). */
const BUILTIN_SCHEMAS: Record<string, JsonObject> = {
  [SemanticTool.postgres]: {
    type: 'object',
    description: 'One read-only SQL query with named :params.',
    properties: { query: TEXT_ARG, sql: TEXT_ARG, params: { type: ['object', 'null'] } },
  },
  [SemanticTool.interpret]: {
    type: 'object',
    description: 'The business question to interpret (defaults to the user input).',
    properties: {
      question: TEXT_ARG,
      standalone_query: TEXT_ARG,
      standaloneQuery: TEXT_ARG,
      query: TEXT_ARG,
      user_input: TEXT_ARG,
    },
  },
  [SemanticTool.query]: {
    type: 'object',
    description: 'The canonical intent of the latest interpret result (filled in by the engine).',
    properties: {
      canonicalIntent: { type: ['object', 'null'] },
      canonical_intent: { type: ['object', 'null'] },
      question: TEXT_ARG,
      query: TEXT_ARG,
      user_input: TEXT_ARG,
    },
  },
};

const ARG_PLACEHOLDER = /\{\{\s*args\.([A-Za-z0-9_-]+)/g;
const SQL_BIND = /(?<![:\w]):([A-Za-z_]\w*)/g;

function objectOf(names: Iterable<string>, type: JsonObject): JsonObject {
  const properties: JsonObject = {};
  for (const name of names) properties[name] = type;
  return { type: 'object', properties };
}

function templateTexts(row: McpHttpToolRow): string[] {
  const texts = [row.urlTemplate, row.bodyTemplate ?? ''];
  for (const column of [row.headers, row.queryParams]) {
    if (isJsonObject(column)) for (const v of Object.values(column)) if (typeof v === 'string') texts.push(v);
  }
  return texts;
}

/** The top-level argument names an HTTP tool's templates read (`{{args.<name>}}`). */
export function httpTemplateArgs(row: McpHttpToolRow): Set<string> {
  const names = new Set<string>();
  for (const text of templateTexts(row)) for (const m of text.matchAll(ARG_PLACEHOLDER)) names.add(m[1] as string);
  return names;
}

function dbTemplateArgs(row: McpDbToolRow): Set<string> {
  const sql = row.sqlTemplate.replace(/'(?:[^']|'')*'/g, "''");
  const names = new Set<string>(['limit']);
  for (const m of sql.matchAll(SQL_BIND)) names.add(m[1] as string);
  for (const name of identifierPlaceholders(sql)) names.add(name);
  return names;
}

/** Keywords whose values are data, not schemas. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'description', 'title']);

/** Adds `additionalProperties: false` to every object schema that declares properties and is silent on it. */
export function closeObjectSchemas(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(closeObjectSchemas);
  if (!isJsonObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) {
      out[key] = value;
      continue;
    }
    const nested = key === 'properties' && isJsonObject(value);
    out[key] = nested
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closeObjectSchemas(v)]))
      : closeObjectSchemas(value);
  }
  const declaresShape = isJsonObject(schema.properties) || schema.type === 'object';
  if (declaresShape && !('additionalProperties' in schema) && !('patternProperties' in schema)) {
    out['additionalProperties'] = false;
  }
  return out;
}

/** The schema as configured (or derived), before closing; null only for a tool with no executor row. */
function declaredSchema(snapshot: ConfigSnapshot, tool: McpToolRow): Json | null {
  const builtIn = BUILTIN_SCHEMAS[toolCodeKey(tool.toolCode)];
  if (builtIn) return builtIn;
  const http = snapshot.rows.mcpHttpTools.find((h) => h.toolId === tool.toolId);
  if (http) return http.inputSchema ?? objectOf(httpTemplateArgs(http), SCALAR_ARG);
  const db = snapshot.rows.mcpDbTools.find((d) => d.toolId === tool.toolId);
  if (db) return db.paramSchema ?? objectOf(dbTemplateArgs(db), SCALAR_ARG);
  return null;
}

/**
 * The input schema a call of `tool` is validated against. A tool with neither a built-in
 * implementation nor a DB/HTTP row (only a consumer handler) takes no arguments unless a row
 * declares them: failing closed, an undeclared argument is never passed on.
 */
export function toolInputSchema(snapshot: ConfigSnapshot, tool: McpToolRow): Json {
  return closeObjectSchemas(declaredSchema(snapshot, tool) ?? { type: 'object', properties: {} });
}
