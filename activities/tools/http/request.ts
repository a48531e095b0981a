import type { McpHttpToolRow } from '../../../core/config/types';
import { EngineError, ErrorType } from '../../../core/errors';
import { isJsonObject, tryParseJson, type Json, type JsonObject } from '../../../core/json';
import { renderJsonTemplate, renderText, renderValue, TOOL_ENV_PREFIX, type PlaceholderScope } from './placeholders';

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
  return new EngineError(ErrorType.ConfigInvalid, `HTTP tool ${scope.toolCode}: ${message}`);
}

function objectColumn(value: Json | null, column: string, scope: PlaceholderScope): JsonObject {
  if (value === null) return {};
  if (!isJsonObject(value)) throw configError(scope, `${column} must be a JSON object`);
  return value;
}

function buildUrl(row: McpHttpToolRow, scope: PlaceholderScope): string {
  const rendered = renderText(row.urlTemplate, scope, 'url_template', encodeURIComponent);
  let url: URL;
  try {
    url = new URL(rendered);
  } catch {
    throw configError(scope, `url_template does not render to a valid URL (${rendered})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw configError(scope, 'url_template must be http(s)');
  for (const [name, template] of Object.entries(objectColumn(row.queryParams, 'query_params', scope))) {
    const value = renderValue(template, scope, `query param "${name}"`);
    if (value === undefined || value === null || value === '') continue;
    url.searchParams.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return url.toString();
}

function buildHeaders(row: McpHttpToolRow, scope: PlaceholderScope): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(objectColumn(row.headers, 'headers', scope))) {
    const value = renderValue(template, scope, `header "${name}"`);
    if (value !== undefined && value !== null)
      headers[name] = typeof value === 'string' ? value : JSON.stringify(value);
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

function buildBody(row: McpHttpToolRow, method: string, scope: PlaceholderScope): string | null {
  if (!BODY_METHODS.has(method)) return null;
  if (row.bodyTemplate === null) return JSON.stringify(scope.args);
  const parsed = tryParseJson(row.bodyTemplate);
  if (parsed !== undefined) return JSON.stringify(renderJsonTemplate(parsed, scope, 'body_template'));
  return renderText(row.bodyTemplate, scope, 'body_template');
}

/**
 * Renders a ce_mcp_http_tool row for one call: URL (path placeholders URL-encoded, query params
 * with missing optional args skipped), headers, auth from the named env var, body (a null
 * body_template on POST/PUT/PATCH sends the args as JSON), the injected context headers and,
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
