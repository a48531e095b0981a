import { isJsonObject, tryParseJson } from '../json';
import { cutText } from '../text/cut-text';
import { parseTemplate, unresolvedVariable, type VariablePath } from './syntax';

/** Variables available to a template: the pipeline builds this map at render time. */
export type TemplateVariables = Readonly<Record<string, unknown>>;

/**
 * Renders a template strictly. Strings are inserted as-is, numbers and booleans via String, lists of scalars (and
 * of such lists) as Java prints a List (`[a, b]`, `[[a], [b]]`), objects and lists holding one as JSON, null as ''.
 * No HTML escaping (prompts are text). A variable whose root or any segment does not exist (and has no
 * `?: 'default'`) throws EngineError UNRESOLVED_PROMPT_VARIABLE naming it; a malformed template throws
 * TEMPLATE_MALFORMED (EXACT responses fall back on either).
 */
export function renderTemplate(template: string, vars: TemplateVariables): string {
  return renderParts(template, vars, (err) => {
    throw err;
  }).text;
}

/**
 * The most characters one placeholder puts into a model's prompt (renderPrompt). `{{context}}` with a tool's 1.9 MB
 * result made a 1.8 MB planner prompt (~475k tokens) and another for the reply's; past this, the value is cut and
 * says so (PROMPT_CUT_MARK), so the model knows it saw part. Far above any prompt's own text, a tool catalog or the
 * planner's compacted observations (McpPlanner.MAX_OBSERVATION_CHARS).
 */
export const PROMPT_VALUE_MAX_CHARS = 65_536;

/** What follows a value renderPrompt cut: how much of it the prompt holds. */
export const PROMPT_CUT_MARK = (shown: number, total: number): string =>
  `…[cut: ${shown} of ${total} characters shown]`;

/** renderTemplate for a model's prompt: each placeholder's text is at most PROMPT_VALUE_MAX_CHARS, then marked. */
export function renderPrompt(template: string, vars: TemplateVariables): string {
  return renderParts(
    template,
    vars,
    (err) => {
      throw err;
    },
    PROMPT_VALUE_MAX_CHARS
  ).text;
}

/** A lenient render: what it produced, and the variables that were absent (rendered as '' or their default). */
export interface LenientRender {
  text: string;
  missing: string[];
}

/**
 * Renders a response template without failing on absent values (§8: an absent value renders as
 * empty, or as the placeholder's `?: 'default'`). Malformed templates still throw TEMPLATE_MALFORMED.
 */
export function renderTemplateLenient(template: string, vars: TemplateVariables): LenientRender {
  return renderParts(template, vars, () => undefined);
}

function renderParts(
  template: string,
  vars: TemplateVariables,
  onMissing: (err: Error) => void,
  maxValueChars = Infinity
): LenientRender {
  let text = '';
  const missing: string[] = [];
  for (const part of parseTemplate(template)) {
    if (part.kind === 'text') {
      text += part.text;
      continue;
    }
    let value: string | undefined;
    try {
      value = cappedValue(formatTemplateValue(resolveVariablePath(part.path, vars)), maxValueChars);
    } catch (err) {
      if (part.fallback === undefined) onMissing(err as Error);
      missing.push(part.path.text);
    }
    text += value === undefined || value === '' ? (part.fallback ?? value ?? '') : value;
  }
  return { text, missing };
}

function cappedValue(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const shown = cutText(text, maxChars);
  return shown + PROMPT_CUT_MARK(shown.length, text.length);
}

/** The value a variable path addresses; throws UNRESOLVED_PROMPT_VARIABLE when it does not exist. */
export function resolveVariablePath(path: VariablePath, vars: TemplateVariables): unknown {
  if (!Object.hasOwn(vars, path.root) || vars[path.root] === undefined) {
    throw unresolvedVariable(path, `no variable named "${path.root}"`);
  }
  let value: unknown = vars[path.root];
  let where = path.root;
  for (const segment of path.segments) {
    const container = navigable(value);
    const next = childOf(container, segment);
    if (next === undefined) throw unresolvedVariable(path, `"${String(segment)}" does not exist in "${where}"`);
    value = next;
    where += typeof segment === 'number' ? `[${segment}]` : `.${segment}`;
  }
  return value;
}

/** Strings holding JSON (context is often carried as JSON text) can be navigated into. */
function navigable(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return value;
  return tryParseJson(trimmed) ?? value;
}

function childOf(container: unknown, segment: string | number): unknown {
  if (Array.isArray(container)) {
    const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : -1;
    return index >= 0 && index < container.length ? (container[index] as unknown) : undefined;
  }
  if (container instanceof Map) return container.get(String(segment));
  if (isJsonObject(container) || (typeof container === 'object' && container !== null)) {
    const key = String(segment);
    return Object.hasOwn(container, key) ? (container as Record<string, unknown>)[key] : undefined;
  }
  return undefined;
}

export function formatTemplateValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (isScalar(value)) return String(value);
  if (isPlainList(value)) return javaListText(value);
  if (value instanceof Map) return JSON.stringify(Object.fromEntries(value));
  return JSON.stringify(value);
}

function isScalar(value: unknown): value is string | number | boolean | bigint {
  const kind = typeof value;
  return kind === 'string' || kind === 'number' || kind === 'boolean' || kind === 'bigint';
}

/** A list of plain values, of such lists, and so on: nothing in it is an object. */
function isPlainList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && value.every((item) => item === null || isScalar(item) || isPlainList(item));
}

/**
 * A plain list renders as the Java engine's templates print a Java List (`[a, b]`, nested `[[a, b], [c]]`,
 * strings unquoted, null as `null`), so a reply like "Still need: {{missing_fields}}" reads the same on both
 * engines. A value holding an object anywhere stays JSON whole: Java prints a Map as `{k=v}`, which no prompt
 * or reply can use (`{{conversation_history}}` is a list of objects), and one value half in each form would read
 * as neither (docs/migrating-from-java.md §6).
 */
function javaListText(items: readonly unknown[]): string {
  const item = (x: unknown): string => (Array.isArray(x) ? javaListText(x) : x === null ? 'null' : String(x));
  return `[${items.map(item).join(', ')}]`;
}
