import { isJsonObject } from '../../json';
import { httpTemplateArgs } from '../../mcp/tool-input-schema';
import type { McpHttpToolRow } from '../types';
import { isBlank, type ValidationContext } from './context';
import { checkJsonSchema } from './schema-checks';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * An HTTP tool's input schema (issue #21). A POST/PUT/PATCH tool without one and without a
 * body_template would send whatever arguments the planner produced as the body — mass
 * assignment by prompt injection — so that is refused at load. A tool that sends no body takes
 * only the arguments its URL, query and header templates read (the derived schema), and is
 * warned to declare one. A schema must be an object schema that declares every argument the
 * templates read; otherwise every call would fail on a missing argument.
 */
export function checkHttpInputSchema(ctx: ValidationContext, h: McpHttpToolRow): void {
  const fail = (reason: string) => ctx.sink.violation('ce_mcp_http_tool', h.toolId, reason);
  if (h.inputSchema === null) {
    if (!isBlank(h.bodyTemplate)) return;
    if (BODY_METHODS.has(h.httpMethod.trim().toUpperCase())) {
      fail(
        'has neither input_schema nor body_template, so whatever arguments the planner produced would be sent as the ' +
          'body; set input_schema to a JSON Schema of the arguments the tool takes (or a body_template)'
      );
    } else {
      ctx.sink.warning(
        'ce_mcp_http_tool',
        h.toolId,
        'has no input_schema; calls may only carry the arguments its templates read (declare input_schema to type them)'
      );
    }
    return;
  }
  const reason = checkJsonSchema(h.inputSchema, { requireObject: true });
  if (reason !== null) return fail(`input_schema ${reason}`);
  const schema = h.inputSchema;
  if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return;
  if (schema.additionalProperties === true || isJsonObject(schema.additionalProperties)) return;
  const declared = schema.properties;
  for (const name of httpTemplateArgs(h)) {
    if (!Object.hasOwn(declared, name)) fail(`a template reads {{args.${name}}}, which input_schema does not declare`);
  }
}
