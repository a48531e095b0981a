import type { ScriptEntry } from '../../scripted-llm';

/**
 * Building blocks of the recorded completions. A recording answers one call kind when the prompt
 * (system prompt + user text) fits a pattern built here: what the prompt must contain and must not
 * contain. Patterns are anchored on the prompt's own labelled lines ("User message:", "Latest
 * observations:"), so a recording reacts to what the engine shows the model — the user text and the
 * tool results so far — and never to the order of calls.
 */
export type Part = string | RegExp;

/** A literal string as RegExp source. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function source(part: Part): string {
  return typeof part === 'string' ? literal(part) : part.source;
}

/** Lookaheads over the rest of the text (`[\s\S]`) or the rest of one line (`[^\n]`). */
function lookaheads(span: string, has: readonly Part[], lacks: readonly Part[]): string {
  return [...has.map((p) => `(?=${span}*?${source(p)})`), ...lacks.map((p) => `(?!${span}*?${source(p)})`)].join('');
}

/** The prompt contains every `has` part (each a pattern in its own right) and none of `lacks`. */
export function prompt(has: readonly Part[], lacks: readonly Part[] = []): RegExp {
  return new RegExp(`^${lookaheads('[\\s\\S]', has, lacks)}`);
}

/** Pattern of a line that starts with `label` and whose rest contains every `has` and none of `lacks`. */
export function line(label: string, has: readonly Part[] = [], lacks: readonly Part[] = []): RegExp {
  return new RegExp(`(?:^|\\n)${literal(label)}${lookaheads('[^\\n]', has, lacks)}`);
}

/** Pattern of the prompt ending with `label` followed by exactly `text` (a rendered user message). */
export function endsWith(label: string, text: string): RegExp {
  return new RegExp(`(?:^|\\n)${literal(label)}${literal(text)}\\s*$`);
}

/** A persistent recording: answers every request it fits, any number of times, concurrently. */
export function recording(label: string, kind: string, match: RegExp, reply: unknown): ScriptEntry {
  return { label, kind, match, reply, persistent: true };
}

/** A planner answer that calls a tool. */
export function callTool(toolCode: string, args: Record<string, unknown>): unknown {
  return { action: 'CALL_TOOL', tool_code: toolCode, args, answer: null, operation_tag: null };
}

/** A planner answer that ends the loop with a final answer. */
export function answer(text: string): unknown {
  return { action: 'ANSWER', tool_code: null, args: {}, answer: text, operation_tag: null };
}

/** JSON text of a tool-result field as the observations show it, e.g. `"status":"MOVED"`. */
export function field(name: string, value: unknown): string {
  return `${JSON.stringify(name)}:${JSON.stringify(value)}`;
}

/** The `"toolCode":"…"` marker of one observation. */
export function observed(toolCode: string): string {
  return field('toolCode', toolCode);
}
