import { isJsonObject, isSharedJson, type JsonObject } from '../../core/json';

/**
 * The session's context and input params as audit rows copy them: `_meta.context` and `_meta.inputParams` on every
 * row, and the `context` field of the rows that carry the session's context in their payload (RULE_MATCH, SET_STATE,
 * SET_INTENT, ASSISTANT_OUTPUT, …, as the Java engine writes them). Each is kept up to META_CONTEXT_MAX_BYTES as JSON.
 * A bigger one (a large tool result in context.mcp, a model's megabyte of standalone query or tool arguments in the
 * params) would be stored again in every row of the turn: one 1 MB HTTP result once wrote 111 MB of audit, a 1.9 MB
 * one 36 MB even once `_meta` was capped, 300 KB of standalone query 72 MB. Past it, rows say how big it was
 * (`{_elided, bytes}`); the rows that carry the value itself (MCP_TOOL_RESULT…, DIALOGUE_ACT_LLM_OUTPUT) still have
 * it, and so does ENGINE_RETURN's `final_result.context`, which the API reads back as the committed turn's reply.
 */
export const META_CONTEXT_MAX_BYTES = 64 * 1024;

/** Sizes of shared values (core/json.ts shareJson): they never change, so a tool result is measured once. */
const MEMO_MIN_BYTES = 4096;
const SHARED_SIZES = new WeakMap<object, number>();

/** UTF-8 bytes of `value` as JSON.stringify writes it, walking plain JSON and measuring each shared value once. */
function jsonBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(JSON.stringify(value), 'utf8');
  if (typeof value !== 'object' || value === null || !isPlainContainer(value)) {
    return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
  }
  const known = SHARED_SIZES.get(value);
  if (known !== undefined) return known;
  let bytes = 2;
  if (Array.isArray(value)) {
    for (const item of value) bytes += (item === undefined ? 4 : jsonBytes(item)) + 1;
  } else {
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) bytes += jsonBytes(key) + jsonBytes(item) + 2;
    }
  }
  // The last comma counted is not written; an empty container has none.
  const total = bytes > 2 ? bytes - 1 : bytes;
  // Only the big ones: half a million `[]` in a result need no entry each.
  if (total >= MEMO_MIN_BYTES && isSharedJson(value)) SHARED_SIZES.set(value, total);
  return total;
}

function isPlainContainer(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

export function auditCapped(what: 'context' | 'inputParams', value: JsonObject): JsonObject {
  let bytes: number;
  try {
    bytes = jsonBytes(value);
  } catch (err) {
    // Nesting too deep to walk: the row (a STEP_ERROR among them) must still be written.
    return { _elided: `${what} cannot be written as JSON (${err instanceof Error ? err.name : 'error'})` };
  }
  if (bytes <= META_CONTEXT_MAX_BYTES) return value;
  return {
    _elided: `${what} is ${bytes} bytes as JSON, over the ${META_CONTEXT_MAX_BYTES} bytes an audit row keeps`,
    bytes,
  };
}

/** A row's payload with its `context` field (when it has one) capped as `_meta.context` is. */
export function payloadContextCapped(payload: JsonObject): JsonObject {
  const context = payload['context'];
  if (!isJsonObject(context)) return payload;
  const capped = auditCapped('context', context);
  return capped === context ? payload : { ...payload, context: capped };
}
