import { parseResponseMapping, type ResponseMappingSpec } from '../../../core/config/response-mapping';
import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import { EngineError, ErrorType } from '../../../core/errors';
import { tryParseJson, type Json, type JsonObject } from '../../../core/json';
import { firstJsonLoss } from '../../../core/json-loss';
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

/**
 * A body JSON.parse would change: a number a double does not hold (1e400 would be null, 123456789012345678901234567890
 * 1.2345678901234568e+29, and the planner and the user told so). Refused as the API refuses such a request
 * (docs/security.md, INEXACT_NUMBER), by the same scan; the number, like the rest of the body, is not quoted.
 */
function refuseInexactNumbers(toolCode: string, body: string): void {
  if (firstJsonLoss(body, true) === null) return;
  throw new EngineError(
    ErrorType.ToolResponseInexactNumber,
    `HTTP tool ${toolCode}: the response holds a number a double does not hold exactly (such as 1e400 or ` +
      '123456789012345678901234567890); it is refused rather than changed. Map the tool with TEXT, or have the ' +
      'upstream send such a number as a string',
    { details: { toolCode } }
  );
}

export function mapResponse(toolCode: string, spec: ResponseMappingSpec, body: string): Json {
  if (spec.kind === 'TEXT') return body;
  const parsed = body.trim() === '' ? {} : tryParseJson(body);
  if (parsed !== undefined) refuseInexactNumbers(toolCode, body);
  if (parsed === undefined && spec.kind === 'RAW_JSON') return { text: body };
  if (parsed === undefined) {
    throw new EngineError(
      ErrorType.ToolExecutionFailed,
      `HTTP tool ${toolCode}: response is not JSON, so ${spec.kind} cannot map it`,
      // The upstream answered 2xx with a body of another kind: a contract mismatch, not a hiccup. No part of the
      // body is kept, as for a failed status (invoker.ts).
      { retryable: false, details: { toolCode } }
    );
  }
  // Screened (nesting bounded) before a JSONPath walks it, and shared: executeTool's screen of the whole result
  // takes it as it is.
  const screened = storableToolOutput(toolCode, parsed);
  if (spec.kind === 'RAW_JSON') return screened;
  if (spec.kind === 'JSON_PATH') return firstJsonPathMatch(spec.path, screened) ?? null;
  const mapped: JsonObject = {};
  for (const [field, path] of Object.entries(spec.fields)) mapped[field] = firstJsonPathMatch(path, screened) ?? null;
  return mapped;
}
