import type { McpHttpToolRow } from '../../../core/config/tool-rows';
import { isJsonObject } from '../../../core/json';
import { HTTP_PLACEHOLDER } from '../../../core/mcp/http-body-template';
import { renderText, renderValue, toolArgsError, toolConfigError, type PlaceholderScope } from './placeholders';

/**
 * The URL of one tool call. Argument and context values are percent-encoded, so a value cannot add
 * a path segment, a query or a fragment; but `.` and `..` survive encoding and the URL parser
 * resolves them (`/users/../profile` is `/profile`), so a path value that is, or decodes to, a dot
 * segment is refused, as is an empty value that is a whole segment (`/orders//items`); the rendered
 * path must keep the template's fixed prefix and its number of segments: an argument can fill a
 * segment, never move to another endpoint. An empty value beside fixed text in its segment
 * (`/orders/id-{{args.id}}` gives `/orders/id-`) or in the query is sent as it is.
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

/**
 * Where the placeholders that are a whole path segment on their own start (`/orders/{{args.id}}/items`, or last
 * before the query): an empty value there would leave an empty segment (`/orders//items`, `/orders/`), another
 * endpoint to most servers. A placeholder beside fixed text in its segment (`/orders/id-{{args.id}}`) is not one.
 */
function wholeSegmentOffsets(template: string, pathEnd: number): Set<number> {
  const offsets = new Set<number>();
  for (const m of template.slice(0, pathEnd).matchAll(HTTP_PLACEHOLDER)) {
    const end = m.index + m[0].length;
    if (template[m.index - 1] === '/' && (end === pathEnd || template[end] === '/')) offsets.add(m.index);
  }
  return offsets;
}

function renderPath(template: string, scope: PlaceholderScope): string {
  const queryAt = template.search(/[?#]/);
  const pathEnd = queryAt < 0 ? template.length : queryAt;
  const wholeSegments = wholeSegmentOffsets(template, pathEnd);
  return renderText(template, scope, 'url_template', (value, offset, path) => {
    if (offset < pathEnd && isDotSegment(value)) {
      const message = `argument "${path}" is a dot segment (${value}), which would change the URL path`;
      throw toolArgsError(scope.toolCode, message, { argument: path });
    }
    if (value === '' && wholeSegments.has(offset)) {
      const message = `argument "${path}" is empty, which would leave an empty segment in the URL path`;
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
 * Defence in depth: no dot segment and no empty segment the template does not have (fixed text and a value can
 * make one together: `/items/.{{args.id}}` with '', `/items/{{args.a}}{{args.b}}` with two), and the parsed path
 * starts with the template's text before its first argument and has as many segments as the template.
 */
function checkPathShape(template: string, rendered: string, scope: PlaceholderScope): void {
  const first = [...template.matchAll(HTTP_PLACEHOLDER)].find((m) => m[1] !== 'env');
  if (first === undefined) return;
  const skeleton = renderText(template, scope, 'url_template', () => 'x');
  const fixed = rawSegments(skeleton);
  const addsSegment = rawSegments(rendered).some((segment, i) =>
    segment === '' ? fixed[i] !== '' : PARSED_DOT_SEGMENT.test(segment) && !PARSED_DOT_SEGMENT.test(fixed[i] ?? '')
  );
  const path = pathOf(rendered) ?? '';
  const fixedPrefix = pathOf(renderText(template.slice(0, first.index), scope, 'url_template'));
  const skeletonPath = pathOf(skeleton);
  const segments = (p: string): number => p.split('/').length;
  if (
    addsSegment ||
    (fixedPrefix !== null && !path.startsWith(fixedPrefix)) ||
    (skeletonPath !== null && segments(skeletonPath) !== segments(path))
  ) {
    throw toolArgsError(scope.toolCode, `the arguments change the URL path (${placeholdersOf(template, false)})`);
  }
}

/**
 * The placeholders a template reads, by name: its `{{env.…}}` ones, or the others (`{{args.…}}`, `{{ctx.…}}`). A
 * message about a rendered URL names them and never quotes the URL: it holds the environment's values as they are
 * (a key in the query, the host) and the call's arguments, and the message reaches audit rows, the SSE stream,
 * history and logs; a TOOL_ARGS_INVALID one also the caller.
 */
function placeholdersOf(template: string, env: boolean): string {
  const names = [...template.matchAll(HTTP_PLACEHOLDER)]
    .filter((m) => (m[1] === 'env') === env)
    .map((m) => `{{${m[1]}.${m[2]}}}`);
  const list = [...new Set(names)].join(', ');
  return list === '' ? 'url_template as written' : `url_template reads ${list}; values not shown`;
}

export function buildUrl(row: McpHttpToolRow, scope: PlaceholderScope): string {
  const rendered = renderPath(row.urlTemplate, scope);
  let url: URL;
  try {
    url = new URL(rendered);
  } catch {
    throw toolConfigError(
      scope.toolCode,
      `url_template does not render to a valid URL (${placeholdersOf(row.urlTemplate, true)})`
    );
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
