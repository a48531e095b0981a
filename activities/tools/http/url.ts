import type { McpHttpToolRow } from '../../../core/config/types';
import { isJsonObject } from '../../../core/json';
import { HTTP_PLACEHOLDER } from '../../../core/mcp/http-body-template';
import { renderText, renderValue, toolArgsError, toolConfigError, type PlaceholderScope } from './placeholders';

/**
 * The URL of one tool call. Argument and context values are percent-encoded, so a value cannot add
 * a path segment, a query or a fragment; but `.` and `..` survive encoding and the URL parser
 * resolves them (`/users/../profile` is `/profile`), so a path value that is, or decodes to, a dot
 * segment is refused, and the rendered path must keep the template's fixed prefix and its number of
 * segments: an argument can fill a segment, never move to another endpoint.
 */

/** Whether a value is `.` or `..`, as written or once an upstream percent-decodes it (`%2e%2E`), however often. */
function isDotSegment(value: string): boolean {
  let text = value;
  for (let round = 0; round < 4; round++) {
    if (text === '.' || text === '..') return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      return false;
    }
    if (decoded === text) return false;
    text = decoded;
  }
  return text === '.' || text === '..';
}

function renderPath(template: string, scope: PlaceholderScope): string {
  const queryAt = template.search(/[?#]/);
  const pathEnd = queryAt < 0 ? template.length : queryAt;
  return renderText(template, scope, 'url_template', (value, offset, path) => {
    if (offset < pathEnd && isDotSegment(value)) {
      const message = `argument "${path}" is a dot segment (${value}), which would change the URL path`;
      throw toolArgsError(scope.toolCode, message, { argument: path });
    }
    return encodeURIComponent(value);
  });
}

function pathOf(text: string): string | null {
  try {
    return new URL(text).pathname;
  } catch {
    return null;
  }
}

/** The path segments of a URL as written, before the parser resolves dot segments. */
function rawSegments(text: string): string[] {
  const path = text.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0] ?? '';
  return path.split('/');
}

/** What the URL parser resolves as `.` or `..` (WHATWG URL: `%2e` counts as a dot). */
const PARSED_DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Defence in depth: no dot segment the template does not have (fixed text and a value can make one
 * together: `/items/.{{args.id}}` with ''), and the parsed path starts with the template's text
 * before its first argument and has as many segments as the template.
 */
function checkPathShape(template: string, rendered: string, scope: PlaceholderScope): void {
  const first = [...template.matchAll(HTTP_PLACEHOLDER)].find((m) => m[1] !== 'env');
  if (first === undefined) return;
  const skeleton = renderText(template, scope, 'url_template', () => 'x');
  const fixed = rawSegments(skeleton);
  const addsDotSegment = rawSegments(rendered).some(
    (segment, i) => PARSED_DOT_SEGMENT.test(segment) && !PARSED_DOT_SEGMENT.test(fixed[i] ?? '')
  );
  const path = pathOf(rendered) ?? '';
  const fixedPrefix = pathOf(renderText(template.slice(0, first.index), scope, 'url_template'));
  const skeletonPath = pathOf(skeleton);
  const segments = (p: string): number => p.split('/').length;
  if (
    addsDotSegment ||
    (fixedPrefix !== null && !path.startsWith(fixedPrefix)) ||
    (skeletonPath !== null && segments(skeletonPath) !== segments(path))
  ) {
    throw toolArgsError(scope.toolCode, `the arguments change the URL path (${path})`);
  }
}

export function buildUrl(row: McpHttpToolRow, scope: PlaceholderScope): string {
  const rendered = renderPath(row.urlTemplate, scope);
  let url: URL;
  try {
    url = new URL(rendered);
  } catch {
    throw toolConfigError(scope.toolCode, `url_template does not render to a valid URL (${rendered})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw toolConfigError(scope.toolCode, 'url_template must be http(s)');
  checkPathShape(row.urlTemplate, rendered, scope);
  const queryParams = row.queryParams ?? {};
  if (!isJsonObject(queryParams)) throw toolConfigError(scope.toolCode, 'query_params must be a JSON object');
  for (const [name, template] of Object.entries(queryParams)) {
    const value = renderValue(template, scope, `query param "${name}"`);
    if (value === undefined || value === null || value === '') continue;
    url.searchParams.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return url.toString();
}
