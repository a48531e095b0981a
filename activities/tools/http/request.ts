import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import type { EngineError } from '../../../core/errors';
import { isJsonObject, type Json, type JsonObject } from '../../../core/json';
import { isHttpBodyProblem, planHttpBody } from '../../../core/mcp/http-body-template';
import {
  renderJsonTemplate,
  renderText,
  renderValue,
  TOOL_ENV_PREFIX,
  toolArgsError,
  toolConfigError,
  type PlaceholderScope,
} from './placeholders';
import { buildUrl } from './url';

/** One fully rendered HTTP request of a tool call (the same for every retry attempt). */
export interface HttpRequestSpec {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const METHODS = new Set(['GET', 'DELETE', 'HEAD', ...BODY_METHODS]);

function configError(scope: PlaceholderScope, message: string): EngineError {
  return toolConfigError(scope.toolCode, message);
}

function objectColumn(value: Json | null, column: string, scope: PlaceholderScope): JsonObject {
  if (value === null) return {};
  if (!isJsonObject(value)) throw configError(scope, `${column} must be a JSON object`);
  return value;
}

/**
 * A header value is sent as ASCII: tab and printable characters. Node refuses CR, LF and other controls (they would
 * end the header early) and characters past U+00FF, and sends U+0080–U+00FF as raw Latin-1 bytes, which an upstream
 * reading UTF-8 takes for another text (`José` arrives as `Jos\xE9`). Such a value is not encoded into some
 * convention the upstream may not read (RFC 8187, percent-encoding): it is refused, naming which kind it was.
 */
const CONTROL_CHAR = /[^\t\x20-\x7e\x80-\uffff]/;
const NON_ASCII = /[^\t\x20-\x7e]/;

function headerProblem(text: string): string | null {
  if (CONTROL_CHAR.test(text)) return 'a control character (CR, LF, …)';
  if (NON_ASCII.test(text)) return 'a non-ASCII character (header values are ASCII; send such text in the body or URL)';
  return null;
}

function headerValue(name: string, template: Json, scope: PlaceholderScope): string | null {
  const where = `header "${name}"`;
  const value = renderValue(template, scope, where);
  if (value === undefined || value === null) return null;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const problem = headerProblem(text);
  if (problem === null) return text;
  const fixedPart = typeof template === 'string' ? renderText(template, scope, where, () => '') : '';
  const fixedProblem = headerProblem(fixedPart);
  if (fixedProblem !== null) throw configError(scope, `${where} holds ${fixedProblem}`);
  throw toolArgsError(scope.toolCode, `${where} would carry ${problem} from the call's arguments`, { header: name });
}

function buildHeaders(row: McpHttpToolRow, scope: PlaceholderScope): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(objectColumn(row.headers, 'headers', scope))) {
    const value = headerValue(name, template, scope);
    if (value !== null) headers[name] = value;
  }
  return headers;
}

function authHeader(row: McpHttpToolRow, scope: PlaceholderScope): [string, string] | null {
  const kind = row.authKind.trim().toUpperCase();
  if (kind === 'NONE') return null;
  if (kind !== 'API_KEY' && kind !== 'BEARER')
    throw configError(scope, `auth_kind "${row.authKind}" is not NONE, API_KEY or BEARER`);
  const envName = row.authSecretEnv?.trim();
  if (!envName) throw configError(scope, `auth_kind ${kind} needs auth_secret_env (the variable holding the secret)`);
  if (!envName.startsWith(TOOL_ENV_PREFIX)) {
    throw configError(scope, `auth_secret_env must name a ${TOOL_ENV_PREFIX}* variable (got ${envName})`);
  }
  const secret = scope.env[envName];
  if (secret === undefined || secret === '') {
    throw configError(scope, `auth secret environment variable ${envName} is not set`);
  }
  if (kind === 'BEARER') return ['Authorization', `Bearer ${secret}`];
  return [row.authHeaderName?.trim() || 'X-API-KEY', secret];
}

/** The body, rendered by the rule of core/mcp/http-body-template.ts: no argument value can change its structure. */
function buildBody(row: McpHttpToolRow, method: string, scope: PlaceholderScope): string | null {
  if (!BODY_METHODS.has(method)) return null;
  if (row.bodyTemplate === null || row.bodyTemplate.trim() === '') return JSON.stringify(scope.args);
  const plan = planHttpBody(row.bodyTemplate, row.headers);
  if (isHttpBodyProblem(plan)) throw configError(scope, `body_template ${plan.problem}`);
  if (plan.kind === 'json') return JSON.stringify(renderJsonTemplate(plan.template, scope, 'body_template'));
  if (plan.kind === 'form') return renderText(plan.template, scope, 'body_template', encodeURIComponent);
  return renderText(plan.template, scope, 'body_template');
}

/**
 * Renders a ce_mcp_http_tool row for one call: URL (url.ts: path values URL-encoded, dot segments
 * refused, query params with missing optional args skipped), headers (a control character from an
 * argument is refused), auth from the named env var, body (a null body_template on POST/PUT/PATCH
 * sends the args as JSON), the injected context headers and,
 * for write tools, the stable Idempotency-Key (D16).
 */
export function buildHttpRequest(
  row: McpHttpToolRow,
  scope: PlaceholderScope,
  idempotencyKey: string | null
): HttpRequestSpec {
  const method = row.httpMethod.trim().toUpperCase();
  if (!METHODS.has(method)) throw configError(scope, `http_method "${row.httpMethod}" is not supported`);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    ...buildHeaders(row, scope),
    // Without it any coding is acceptable (RFC 9110 §12.5.3); the transport reads identity only (transport.ts).
    'Accept-Encoding': 'identity',
    'X-Conversation-Id': scope.ctx.conversationId,
    'X-Turn-Number': String(scope.ctx.turnNumber),
  };
  if (scope.ctx.userId) headers['X-User-Id'] = scope.ctx.userId;
  if (scope.ctx.tenantId) headers['X-Tenant-Id'] = scope.ctx.tenantId;
  const auth = authHeader(row, scope);
  if (auth) headers[auth[0]] = auth[1];
  if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
  const body = buildBody(row, method, scope);
  if (body !== null && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/json';
  }
  return { method, url: buildUrl(row, scope), headers, body };
}
