import { isSharedJson, type Json, type JsonObject } from '../json';

/**
 * What a model or a tool hands back is taken in as PostgreSQL can store it. A request's text with a NUL
 * or a lone surrogate is refused at the door (unsafe-text.ts); output is not the user's to fix, so it is
 * repaired instead: each NUL (which text and jsonb cannot hold) and each UTF-16 surrogate not part of a
 * pair (jsonb refuses its escape) becomes U+FFFD, the character Unicode keeps for "something was here".
 * One NUL in a reply used to fail every attempt of the step with 22P05 and call the model, or re-send
 * a write tool's POST, each time. Other control characters are stored as they are.
 */
export const OUTPUT_REPLACEMENT = '\uFFFD';

/**
 * How deep model and tool JSON may nest, counted as unsafe-text.ts counts a request's (MAX_INPUT_DEPTH):
 * far beyond any real answer or API body, far below what the recursive walks over the session (cloning,
 * JSON.stringify of audit `_meta`) can take: 10,000 levels overflowed the stack and failed the turn.
 */
export const MAX_OUTPUT_DEPTH = 64;

const UNSTORABLE =
  // eslint-disable-next-line no-control-regex -- NUL is the point
  /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with NUL and lone surrogates replaced by U+FFFD; the same string when it has none. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, OUTPUT_REPLACEMENT);
}

/**
 * JSON.stringify writes a NUL and each unpaired surrogate as a `\u` escape (a paired one as the character itself),
 * and PostgreSQL's json and jsonb refuse exactly those escapes (22P05, 22P02): one such string anywhere in a
 * statement's JSON fails the whole statement. A lone surrogate is no user's text (the API refuses it), but a cut in
 * the middle of a pair once put one in a session summary, and its audit batch took the turn's rows with it.
 */
const UNSTORABLE_ESCAPE = /\\(u0000|ud[89a-f][0-9a-f]{2}|[^])/g;
const HAS_UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/;

/**
 * `value` as JSON text for a json or jsonb parameter: JSON.stringify's, with each escape PostgreSQL refuses replaced
 * by `\ufffd`, as storableText replaces the character. The same text when it has none.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  // Escaped backslashes are matched in pairs, so `\\ud800` (a backslash, then text) is left as it is.
  if (text === undefined || !HAS_UNSTORABLE_ESCAPE.test(text)) return text;
  return text.replace(UNSTORABLE_ESCAPE, (escape, what: string) => (what.length > 1 ? '\\ufffd' : escape));
}

export type ScreenedJson = { ok: true; json: Json } | { ok: false; error: string };

/**
 * `value` with every string and key made storable (storableText) and no `__proto__` key, or why it cannot be
 * taken: nested deeper than `maxDepth`. The walk stops at that depth, so it cannot overflow the stack itself.
 */
export function screenOutputJson(value: Json, maxDepth = MAX_OUTPUT_DEPTH): ScreenedJson {
  const tooDeep = { ok: false as const, error: `nested deeper than ${maxDepth} levels` };
  const walk = (item: Json, depth: number): Json | typeof TOO_DEEP => {
    if (typeof item === 'string') return storableText(item);
    if (typeof item !== 'object' || item === null) return item;
    // Shared values were screened when taken in (activities/tools/output.ts): nothing in them changes after.
    if (isSharedJson(item)) return item;
    if (depth >= maxDepth) return TOO_DEEP;
    if (Array.isArray(item)) {
      const out: Json[] = [];
      for (const element of item) {
        const copy = walk(element, depth + 1);
        if (copy === TOO_DEEP) return TOO_DEEP;
        out.push(copy);
      }
      return out;
    }
    const out: JsonObject = {};
    for (const [key, element] of Object.entries(item)) {
      // JSON.parse keeps "__proto__" as a field, but assigning it sets the copy's prototype, and a deep merge
      // that reads it reaches Object.prototype: no data a model or a tool returns needs the name.
      if (key === PROTO_KEY) continue;
      const copy = walk(element, depth + 1);
      if (copy === TOO_DEEP) return TOO_DEEP;
      out[storableText(key)] = copy;
    }
    return out;
  };
  const json = walk(value, 0);
  return json === TOO_DEEP ? tooDeep : { ok: true, json };
}

const TOO_DEEP = Symbol('too deep');
const PROTO_KEY = '__proto__';
