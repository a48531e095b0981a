import { isJsonObject, type Json } from '../json';

/**
 * How a ce_mcp_http_tool body_template turns arguments into a body, decided by the request's
 * Content-Type (the `headers` column; none means JSON), so that no argument value can change the
 * body's structure (mass assignment by prompt injection):
 * - JSON (no Content-Type, `application/json`, `…+json`): the template must be JSON once each
 *   `{{…}}` outside quotes is taken as one JSON value; such a placeholder, and a string that is
 *   exactly one placeholder, become the typed value, and a placeholder inside a longer string becomes
 *   string content. Keys are fixed text.
 * - `application/x-www-form-urlencoded`: `name=value&…` pairs with fixed names; each value read into
 *   a pair is percent-encoded.
 * - any other Content-Type: the engine cannot encode a value for it, so the template may not read
 *   `{{args.…}}` or `{{ctx.…}}` at all.
 * Config validation refuses a template that breaks the rule; the HTTP activity renders by it.
 */

/** `{{root.path}}`: the one placeholder form HTTP tool templates render. */
export const HTTP_PLACEHOLDER = /\{\{\s*([A-Za-z]+)\.([A-Za-z0-9_.-]+)\s*\}\}/g;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export type HttpBodyPlan =
  { kind: 'json'; template: Json } | { kind: 'form'; template: string } | { kind: 'fixed'; template: string };

/** A template that cannot be rendered safely: what is wrong and how to fix it. */
export interface HttpBodyProblem {
  problem: string;
}

const ONE_PLACEHOLDER = new RegExp(HTTP_PLACEHOLDER.source);
const PLACEHOLDER_HERE = new RegExp(HTTP_PLACEHOLDER.source, 'y');

function hasPlaceholder(text: string): boolean {
  return ONE_PLACEHOLDER.test(text);
}

/** Whether a text reads a value a caller or the model chooses ({{args.…}}, {{ctx.…}}); env values are config. */
function readsCallerValues(text: string): boolean {
  return [...text.matchAll(HTTP_PLACEHOLDER)].some((m) => m[1] !== 'env');
}

function declaredContentType(headers: Json | null): string | null {
  if (!isJsonObject(headers)) return null;
  for (const [name, value] of Object.entries(headers)) {
    if (name.trim().toLowerCase() === 'content-type' && typeof value === 'string') return value;
  }
  return null;
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** The template text with each placeholder outside JSON strings written as a JSON string holding it. */
function quoteBarePlaceholders(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    PLACEHOLDER_HERE.lastIndex = i;
    const m = PLACEHOLDER_HERE.exec(text);
    if (m) {
      out += `"{{${m[1]}.${m[2]}}}"`;
      i += m[0].length - 1;
      continue;
    }
    if (c === '"') inString = true;
    out += c;
  }
  return out;
}

function placeholderKey(value: Json): string | null {
  if (Array.isArray(value)) {
    for (const item of value) {
      const key = placeholderKey(item);
      if (key !== null) return key;
    }
  } else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (hasPlaceholder(key)) return key;
      const nested = placeholderKey(item);
      if (nested !== null) return nested;
    }
  }
  return null;
}

function jsonPlan(text: string): HttpBodyPlan | HttpBodyProblem {
  let template: Json;
  try {
    template = JSON.parse(quoteBarePlaceholders(text)) as Json;
  } catch (err) {
    // Positions count in the quoted text, not the author's, so they would mislead.
    const reason = (err as Error).message.replace(/ in JSON at position \d+.*$/, '');
    return {
      problem:
        `is not JSON once each {{…}} is taken as one JSON value (${reason}); a JSON body ` +
        '(no Content-Type header, or application/json) must be, e.g. {"amount": {{args.amount}}, "note": "{{args.note}}"}; ' +
        `for a form body set the Content-Type header to ${FORM_CONTENT_TYPE}`,
    };
  }
  const key = placeholderKey(template);
  if (key !== null) return { problem: `has a placeholder in the key "${key}"; JSON keys must be fixed text` };
  return { kind: 'json', template };
}

function formPlan(text: string): HttpBodyPlan | HttpBodyProblem {
  for (const pair of text.split('&')) {
    const name = pair.split('=')[0] as string;
    if (hasPlaceholder(name)) {
      return {
        problem: `has a placeholder in the form field name "${name}"; write name={{args.<name>}} pairs with fixed names`,
      };
    }
  }
  return { kind: 'form', template: text };
}

/** How to render a body_template with the row's headers, or why it cannot be rendered safely. */
export function planHttpBody(bodyTemplate: string, headers: Json | null): HttpBodyPlan | HttpBodyProblem {
  const contentType = declaredContentType(headers);
  if (contentType !== null && hasPlaceholder(contentType)) {
    return { problem: 'needs a Content-Type header of fixed text (it says how argument values are encoded)' };
  }
  const mediaType = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  if (isJsonMediaType(mediaType)) return jsonPlan(bodyTemplate);
  if (mediaType === FORM_CONTENT_TYPE) return formPlan(bodyTemplate);
  if (readsCallerValues(bodyTemplate)) {
    return {
      problem:
        `reads {{args.…}} or {{ctx.…}}, but the engine cannot encode values for Content-Type "${contentType}"; ` +
        `use a JSON body (no Content-Type header, or application/json) or ${FORM_CONTENT_TYPE}`,
    };
  }
  return { kind: 'fixed', template: bodyTemplate };
}

export function isHttpBodyProblem(plan: HttpBodyPlan | HttpBodyProblem): plan is HttpBodyProblem {
  return 'problem' in plan;
}
