import { formatTemplateValue, resolveVariablePath, type LenientRender, type TemplateVariables } from './render';
import { parseTemplate, type TemplateVariablePart } from './syntax';

/**
 * Renders an `output_format: JSON` template so that no value can change the reply's structure: a placeholder
 * inside a JSON string becomes that string's content, escaped (a value holding `"` or a newline stays inside it);
 * anywhere else it becomes one JSON value (a string quoted, a number or boolean as it is, a list or object as JSON,
 * an absent value as its `?: 'default'` string or null). So a template that is JSON with each bare placeholder
 * taken as a value renders as JSON whatever the values are, a user's text included. Absent values are reported as
 * renderTemplateLenient reports them.
 */
export function renderJsonTemplateLenient(template: string, vars: TemplateVariables): LenientRender {
  let text = '';
  let inString = false;
  const missing: string[] = [];
  for (const part of parseTemplate(template)) {
    if (part.kind === 'text') {
      inString = endsInsideString(part.text, inString);
      text += part.text;
      continue;
    }
    const value = resolved(part, vars, missing);
    text += inString ? escapedContent(value, part.fallback) : jsonValue(value, part.fallback);
  }
  return { text, missing };
}

/**
 * The template with every placeholder taken as JSON (null outside strings, empty inside): what validation parses
 * to learn whether the template renders as JSON whatever its values are.
 */
export function jsonTemplateSkeleton(template: string): string {
  return renderJsonTemplateLenient(template, {}).text;
}

/** Absent (no such path) as undefined, noted in `missing`; a null or empty value counts as absent for a default. */
function resolved(part: TemplateVariablePart, vars: TemplateVariables, missing: string[]): unknown {
  try {
    return resolveVariablePath(part.path, vars);
  } catch {
    missing.push(part.path.text);
    return undefined;
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

function escapedContent(value: unknown, fallback: string | undefined): string {
  const content = isEmpty(value) ? (fallback ?? '') : formatTemplateValue(value);
  return JSON.stringify(content).slice(1, -1);
}

function jsonValue(value: unknown, fallback: string | undefined): string {
  if (isEmpty(value)) return fallback !== undefined ? JSON.stringify(fallback) : value === '' ? '""' : 'null';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
  if (value instanceof Map) return JSON.stringify(Object.fromEntries(value));
  return JSON.stringify(value) ?? 'null';
}

/** Whether the template is inside a JSON string after `text`, given whether it was before. */
function endsInsideString(text: string, inString: boolean): boolean {
  let inside = inString;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inside && c === '\\') i++;
    else if (c === '"') inside = !inside;
  }
  return inside;
}
