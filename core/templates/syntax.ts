import { EngineError, ErrorType } from '../errors';
import { cutText } from '../text/cut-text';

/**
 * The prompt/response template language (§8.1): `{{a.b}}`, `{{a['b'][0]}}`, Thymeleaf inline
 * `[[${a.b}]]` and `[(${a.b})]`, and the legacy `#{a.b}` and `[${a.b}]`. Every form is a plain
 * variable reference with an optional default for when the value is absent or empty
 * (`{{a.b ?: 'none'}}`, `[[${a.b ?: "none"}]]`); other expressions (method calls, operators) are
 * not supported.
 */
export const TEMPLATE_MALFORMED = 'TEMPLATE_MALFORMED';

export type TemplateSyntax =
  'mustache' | 'thymeleaf-escaped' | 'thymeleaf-unescaped' | 'legacy-hash' | 'legacy-bracket';

export interface VariablePath {
  /** First name, e.g. `context` in `context.mcp.finalAnswer`. */
  root: string;
  /** Property names and array indices after the root. */
  segments: (string | number)[];
  /** Normalized text: `context.mcp.finalAnswer`, `a.b[0]`. */
  text: string;
}

export type TemplatePart =
  | { kind: 'text'; text: string }
  | { kind: 'variable'; path: VariablePath; raw: string; syntax: TemplateSyntax; fallback?: string };

/** A placeholder: `raw` is it as the author wrote it (`[[${a.b}]]`), `path.text` the normalized path (`a.b`). */
export type TemplateVariablePart = Extract<TemplatePart, { kind: 'variable' }>;

const WHITESPACE = /\s/;

function isSpace(ch: string | undefined): boolean {
  return ch !== undefined && WHITESPACE.test(ch);
}

/**
 * `path ?: 'default'` (single or double quotes, no quote of the same kind inside): the default replaces an absent or
 * empty value. Read from the end in one pass: a regex with a lazy prefix before `\s*` retried the whitespace run at
 * every start, quadratic in a long run of spaces (`{{` + 64,000 spaces + `a}}` took 20 s).
 */
function splitDefault(expression: string): { path: string; fallback: string } | null {
  let end = expression.length;
  while (isSpace(expression[end - 1])) end--;
  const quote = expression[end - 1];
  if (end < 2 || (quote !== "'" && quote !== '"')) return null;
  const open = expression.lastIndexOf(quote, end - 2);
  if (open < 0) return null;
  let operator = open;
  while (isSpace(expression[operator - 1])) operator--;
  if (operator < 2 || !expression.startsWith('?:', operator - 2)) return null;
  let pathEnd = operator - 2;
  while (isSpace(expression[pathEnd - 1])) pathEnd--;
  return { path: expression.slice(0, pathEnd), fallback: expression.slice(open + 1, end - 1) };
}

const DELIMITERS: readonly { open: string; close: string; syntax: TemplateSyntax }[] = [
  { open: '[[${', close: '}]]', syntax: 'thymeleaf-escaped' },
  { open: '[(${', close: '})]', syntax: 'thymeleaf-unescaped' },
  { open: '[${', close: '}]', syntax: 'legacy-bracket' },
  { open: '{{', close: '}}', syntax: 'mustache' },
  { open: '#{', close: '}', syntax: 'legacy-hash' },
];

export function malformedTemplate(template: string, reason: string): EngineError {
  return new EngineError(TEMPLATE_MALFORMED, `malformed template: ${reason}`, {
    details: { reason, templatePreview: cutText(template, 200) },
  });
}

/** Splits a template into text and variable parts; throws EngineError TEMPLATE_MALFORMED. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let i = 0;
  while (i < template.length) {
    const delimiter = DELIMITERS.find((d) => template.startsWith(d.open, i));
    if (!delimiter) {
      text += template[i];
      i++;
      continue;
    }
    const start = i + delimiter.open.length;
    const end = template.indexOf(delimiter.close, start);
    if (end < 0)
      throw malformedTemplate(template, `"${delimiter.open}" at offset ${i} is never closed with "${delimiter.close}"`);
    const raw = template.slice(i, end + delimiter.close.length);
    if (text !== '') parts.push({ kind: 'text', text });
    text = '';
    const expression = template.slice(start, end);
    const withDefault = splitDefault(expression);
    const path = parseVariablePath(withDefault ? withDefault.path : expression, template);
    const fallback = withDefault?.fallback;
    parts.push({
      kind: 'variable',
      path,
      raw,
      syntax: delimiter.syntax,
      ...(fallback === undefined ? {} : { fallback }),
    });
    i = end + delimiter.close.length;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*/;
const DOT_STEP = /^\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/;
const QUOTED_STEP = /^\s*\[\s*(?:'([^']*)'|"([^"]*)")\s*\]/;
const INDEX_STEP = /^\s*\[\s*(\d+)\s*\]/;

/** Parses `a.b['c'][0]`; throws TEMPLATE_MALFORMED naming the expression. */
export function parseVariablePath(expression: string, template = expression): VariablePath {
  const source = expression.trim();
  const fail = (why: string): never => {
    throw malformedTemplate(template, `"${source}" is not a variable path (${why})`);
  };
  if (source === '') fail('the expression is empty');
  const rootMatch = IDENTIFIER.exec(source) ?? fail('it must start with a name');
  const root = (rootMatch as RegExpExecArray)[0];
  const segments: (string | number)[] = [];
  let rest = source.slice(root.length);
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = DOT_STEP.exec(rest))) segments.push(m[1] as string);
    else if ((m = QUOTED_STEP.exec(rest))) segments.push((m[1] ?? m[2]) as string);
    else if ((m = INDEX_STEP.exec(rest))) segments.push(Number(m[1]));
    else return fail(`unexpected "${cutText(rest.trim(), 20)}"`);
    rest = rest.slice(m[0].length);
  }
  return { root, segments, text: formatVariablePath(root, segments) };
}

function formatVariablePath(root: string, segments: readonly (string | number)[]): string {
  let text = root;
  for (const segment of segments) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (IDENTIFIER.test(segment) && IDENTIFIER.exec(segment)?.[0] === segment) text += `.${segment}`;
    else text += `['${segment}']`;
  }
  return text;
}

/** The variable paths a template references, in order of first use; throws TEMPLATE_MALFORMED. */
export function extractTemplateVariables(template: string): string[] {
  return [...new Set(templateVariableRefs(template).map((ref) => ref.text))];
}

export function templateVariableRefs(template: string): VariablePath[] {
  return parseTemplate(template).flatMap((part) => (part.kind === 'variable' ? [part.path] : []));
}

/**
 * Thymeleaf syntax beyond the subset above. The Java engine evaluates it; renderTemplate has no such syntax and
 * passes it through as text, so the user would read `[# th:if="${…}"]idle[/]` as written. Config validation
 * refuses it (renderTemplate does not, so a row stored before renders as it did).
 */
const UNSUPPORTED_THYMELEAF: readonly [shape: RegExp, what: string][] = [
  [/\[#(?=\s|[A-Za-z])/, 'a Thymeleaf element block, [# …]…[/]'],
  [/\[\/(?:th:[A-Za-z]+)?\]/, 'the end of a Thymeleaf element block, [/]'],
  [/(?<![\w:-])th:[A-Za-z][\w-]*\s*=/, 'a Thymeleaf attribute, th:…="…"'],
  [/\[[[(][*@~]\{/, 'a Thymeleaf expression other than ${…} (*{…}, @{…} or ~{…})'],
];

/** parseTemplate, and also refuses Thymeleaf syntax the renderer does not implement (for config validation). */
export function parseAuthoredTemplate(template: string): TemplatePart[] {
  for (const [shape, what] of UNSUPPORTED_THYMELEAF) {
    const at = shape.exec(template);
    if (at) {
      throw malformedTemplate(
        template,
        `${what} at offset ${at.index} is not supported: only variables are rendered ({{a.b}}, [[\${a.b}]], [(\${a.b})], with an optional ?: 'default'), so it would reach the reply as written; choose the text by state or rule instead`
      );
    }
  }
  return parseTemplate(template);
}

/** The placeholders of a template parseAuthoredTemplate accepts, in order; throws TEMPLATE_MALFORMED. */
export function authoredVariableParts(template: string): TemplateVariablePart[] {
  return parseAuthoredTemplate(template).filter((part): part is TemplateVariablePart => part.kind === 'variable');
}

/**
 * `expression` as a placeholder of the syntax the author used, so a message suggests `[[${a ?: ''}]]` to an author who
 * wrote `[[${a}]]`, not a spelling of our own.
 */
export function placeholderIn(syntax: TemplateSyntax, expression: string): string {
  const delimiter = DELIMITERS.find((d) => d.syntax === syntax) ?? { open: '{{', close: '}}' };
  return `${delimiter.open}${expression}${delimiter.close}`;
}

/** Null when the template parses as config validation requires (parseAuthoredTemplate), else the reason. */
export function checkTemplate(template: string): string | null {
  try {
    parseAuthoredTemplate(template);
    return null;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

export function unresolvedVariable(path: VariablePath, reason: string): EngineError {
  return new EngineError(ErrorType.UnresolvedPromptVariable, `unresolved prompt variable "${path.text}": ${reason}`, {
    details: { variable: path.text, reason },
  });
}
