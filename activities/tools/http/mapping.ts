import { parseResponseMapping, type ResponseMappingSpec } from '../../../core/config/response-mapping';
import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import { EngineError, ErrorType } from '../../../core/errors';
import { tryParseJson, type Json, type JsonObject } from '../../../core/json';
import { storableToolOutput } from '../output';
import { firstJsonPathMatch } from '../../../core/rules/jsonpath';

/**
 * Turns a response body into the tool result's `mapped` value (RAW_JSON, JSON_PATH,
 * FIELD_TEMPLATE, TEXT). A JSONPath that matches nothing maps to null rather than failing: the
 * planner and rules can see the gap, and a changed upstream field does not become an outage.
 */
export function responseMappingOf(toolCode: string, row: McpHttpToolRow): ResponseMappingSpec {
  const spec = parseResponseMapping(row.responseMappingKind, row.responseMapping);
  if (typeof spec === 'string') throw new EngineError(ErrorType.ConfigInvalid, `HTTP tool ${toolCode}: ${spec}`);
  return spec;
}

export function mapResponse(toolCode: string, spec: ResponseMappingSpec, body: string): Json {
  if (spec.kind === 'TEXT') return body;
  const parsed = body.trim() === '' ? {} : tryParseJson(body);
  if (spec.kind === 'RAW_JSON') return parsed === undefined ? { text: body } : parsed;
  if (parsed === undefined) {
    throw new EngineError(
      ErrorType.ToolExecutionFailed,
      `HTTP tool ${toolCode}: response is not JSON, so ${spec.kind} cannot map it`,
      // The upstream answered 2xx with a body of another kind: a contract mismatch, not a hiccup. No part of the
      // body is kept, as for a failed status (invoker.ts).
      { retryable: false, details: { toolCode } }
    );
  }
  // Nesting is bounded before a JSONPath walks the body (the whole result is screened again in executeTool).
  storableToolOutput(toolCode, parsed);
  if (spec.kind === 'JSON_PATH') return firstJsonPathMatch(spec.path, parsed) ?? null;
  const mapped: JsonObject = {};
  for (const [field, path] of Object.entries(spec.fields)) mapped[field] = firstJsonPathMatch(path, parsed) ?? null;
  return mapped;
}
