import { EngineError, ErrorType } from '../../../core/errors';
import { TOOL_ENV_PREFIX } from '../../../core/config/vocabulary';
import { isJsonObject, type Json, type JsonObject } from '../../../core/json';
import { HTTP_PLACEHOLDER } from '../../../core/mcp/http-body-template';

/**
 * Placeholders of ce_mcp_http_tool templates: `{{args.<name>}}` (the planner's or request's
 * arguments, dotted paths allowed), `{{ctx.conversationId|turnNumber|userId|tenantId}}` (D16
 * injected context) and `{{env.CONVENGINE_TOOL_<NAME>}}` — only variables with that prefix can be
 * read (TOOL_ENV_PREFIX).
 */
export { TOOL_ENV_PREFIX };

export interface ToolCallContext {
  conversationId: string;
  turnNumber: number;
  userId: string | null;
  tenantId: string | null;
}

export interface PlaceholderScope {
  toolCode: string;
  args: JsonObject;
  ctx: ToolCallContext;
  env: Readonly<Record<string, string | undefined>>;
}

const WHOLE = new RegExp(`^${HTTP_PLACEHOLDER.source}$`);

/** The row itself is wrong: no call of the tool can work until the config is fixed. */
export function toolConfigError(toolCode: string, message: string): EngineError {
  return new EngineError(ErrorType.ConfigInvalid, `HTTP tool ${toolCode}: ${message}`);
}

/** This call's arguments are wrong: nothing is sent, and the same arguments will never work. */
export function toolArgsError(toolCode: string, message: string, details: JsonObject = {}): EngineError {
  return new EngineError(ErrorType.ToolArgsInvalid, `HTTP tool ${toolCode}: ${message}`, {
    details: { toolCode, ...details },
  });
}

function argValue(args: JsonObject, path: string): Json | undefined {
  let value: Json | undefined = args;
  for (const key of path.split('.')) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function envValue(scope: PlaceholderScope, name: string): string {
  if (!name.startsWith(TOOL_ENV_PREFIX)) {
    throw toolConfigError(
      scope.toolCode,
      `{{env.${name}}} is not allowed; only variables named ${TOOL_ENV_PREFIX}* can be used`
    );
  }
  const value = scope.env[name];
  if (value === undefined) {
    throw toolConfigError(scope.toolCode, `environment variable ${name} is not set`);
  }
  return value;
}

/** The value a placeholder stands for; undefined when an argument is missing. */
export function placeholderValue(root: string, path: string, scope: PlaceholderScope): Json | undefined {
  switch (root) {
    case 'args':
      return argValue(scope.args, path);
    case 'ctx': {
      const ctx = scope.ctx as unknown as Record<string, Json>;
      if (!Object.hasOwn(ctx, path)) {
        throw toolConfigError(scope.toolCode, `unknown placeholder {{ctx.${path}}}`);
      }
      return ctx[path] ?? '';
    }
    case 'env':
      return envValue(scope, path);
    default:
      throw toolConfigError(scope.toolCode, `unknown placeholder {{${root}.${path}}} (use args., ctx. or env.)`);
  }
}

function missingArg(scope: PlaceholderScope, path: string, where: string): EngineError {
  return toolArgsError(scope.toolCode, `${where} needs argument "${path}", which the call did not provide`, {
    argument: path,
  });
}

function asText(value: Json): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Escapes one argument or context value for where it goes; `offset` is the placeholder's in the template. */
export type EncodeValue = (text: string, offset: number, path: string) => string;

/**
 * Interpolates placeholders into text; `encode` escapes argument and context values (URL parts).
 * Environment values are configuration (a base URL, a key) and are inserted as they are.
 */
export function renderText(
  template: string,
  scope: PlaceholderScope,
  where: string,
  encode: EncodeValue = (s) => s
): string {
  return template.replace(HTTP_PLACEHOLDER, (_m, root: string, path: string, offset: number) => {
    const value = placeholderValue(root, path, scope);
    if (value === undefined) throw missingArg(scope, path, where);
    return root === 'env' ? asText(value) : encode(asText(value), offset, path);
  });
}

/**
 * A template that is exactly one placeholder yields the typed value (a number stays a number);
 * undefined when that argument is missing, so optional query params can be skipped.
 */
export function renderValue(template: Json, scope: PlaceholderScope, where: string): Json | undefined {
  if (typeof template !== 'string') return template;
  const whole = WHOLE.exec(template.trim());
  if (whole) return placeholderValue(whole[1] as string, whole[2] as string, scope);
  return renderText(template, scope, where);
}

/** Renders every string inside a JSON body template, keeping whole-placeholder values typed. */
export function renderJsonTemplate(template: Json, scope: PlaceholderScope, where: string): Json {
  if (Array.isArray(template)) return template.map((item) => renderJsonTemplate(item, scope, where));
  if (isJsonObject(template)) {
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(template)) out[key] = renderJsonTemplate(value, scope, where);
    return out;
  }
  if (typeof template !== 'string') return template;
  const value = renderValue(template, scope, where);
  if (value === undefined) throw missingArg(scope, template, where);
  return value;
}
