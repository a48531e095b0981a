import { isJsonObject } from '../../json';
import { isHttpBodyProblem, planHttpBody } from '../../mcp/http-body-template';
import { httpTemplateArgs } from '../../mcp/tool-input-schema';
import type { McpHttpToolRow } from '../tool-rows';
import { isBlank, type ValidationContext } from './context';
import { checkJsonSchema } from './schema-checks';

/**
 * An HTTP tool's input schema (issue #21). Without one and without a body_template, nothing says
 * what a call may carry: a POST would send whatever arguments the planner produced as the body
 * (mass assignment by prompt injection), so such a tool is refused at load whatever its method.
 * (At run time a tool without input_schema only ever takes the arguments its templates read.)
 * A schema must be an object schema that declares every argument the templates read; otherwise
 * every call would fail on a missing argument.
 */
export function checkHttpInputSchema(ctx: ValidationContext, h: McpHttpToolRow): void {
  const fail = (reason: string) => ctx.sink.violation('ce_mcp_http_tool', h.toolId, reason);
  if (h.inputSchema === null) {
    if (isBlank(h.bodyTemplate)) {
      fail(
        'has neither input_schema nor body_template, so nothing limits the arguments a call may send; ' +
          'set input_schema to a JSON Schema of the arguments the tool takes (or a body_template)'
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

/**
 * A body_template must say how each value it reads is encoded (core/mcp/http-body-template.ts): a
 * JSON body must be JSON with each placeholder taken as a value, a form body must have fixed field
 * names, and any other Content-Type may not read arguments. Otherwise an argument could add fields.
 */
export function checkHttpBodyTemplate(ctx: ValidationContext, h: McpHttpToolRow): void {
  if (isBlank(h.bodyTemplate)) return;
  const plan = planHttpBody(h.bodyTemplate as string, h.headers);
  if (isHttpBodyProblem(plan)) ctx.sink.violation('ce_mcp_http_tool', h.toolId, `body_template ${plan.problem}`);
}
