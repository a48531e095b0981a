/** JSON values as they travel through sessions, audit payloads and event history. */
export type JsonPrimitive = string | number | boolean | null;
export type Json = JsonPrimitive | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `key` as an own enumerable field, as JSON.parse does. `target[key] = value` would set the prototype for
 * `__proto__` and leave the field out, so data-driven keys (session context, input params) are written this way.
 */
export function setOwnField(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function cloneJson<T extends Json>(value: T): T {
  return cloneAsJson(value) as T;
}

/**
 * `JSON.parse(JSON.stringify(value))`, several times faster for plain data: steps copy the whole
 * session at least once each. Plain JSON data is copied directly (undefined properties dropped,
 * -0 made 0, as the round trip does); anything else (a Date, undefined in an array, NaN, a
 * `__proto__` key, …) goes through the round trip itself, so the copy is always the same.
 */
export function cloneAsJson(value: unknown): unknown {
  const copy = plainCopy(value);
  return copy === NOT_PLAIN ? JSON.parse(JSON.stringify(value)) : copy;
}

const NOT_PLAIN = Symbol('not plain JSON');

/** Values shareJson froze: plain JSON no one can change, so a copy of one is the value itself. */
const SHARED = new WeakSet<object>();

/**
 * Freezes plain JSON `value` through and through and marks it shared: cloneAsJson returns it as it is, and jsonEqual
 * finds two copies of a session that hold it equal at once. For a tool's result, taken in once and never changed:
 * a megabyte of it was copied and compared whole by every step of the turn (500,000 `[]` took 49 s a turn). A step
 * that tried to change it in place would throw rather than change every session that holds it. Only the value
 * itself is marked (a WeakSet entry per `[]` cost more than the copies saved); the parts are only frozen.
 */
export function shareJson<T extends Json>(value: T): T {
  if (typeof value !== 'object' || value === null || SHARED.has(value)) return value;
  deepFreeze(value);
  SHARED.add(value);
  return value;
}

function deepFreeze(value: Json): void {
  if (typeof value !== 'object' || value === null || SHARED.has(value)) return;
  for (const item of Array.isArray(value) ? value : Object.values(value)) deepFreeze(item);
  Object.freeze(value);
}

/** Whether shareJson froze `value` (it never changes: what is known of it, such as its size, can be kept). */
export function isSharedJson(value: unknown): boolean {
  return typeof value === 'object' && value !== null && SHARED.has(value);
}

function plainCopy(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) {
    if (typeof value === 'number') return Number.isFinite(value) ? value + 0 : NOT_PLAIN;
    return value === null || typeof value === 'string' || typeof value === 'boolean' ? value : NOT_PLAIN;
  }
  if (SHARED.has(value)) return value;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = plainCopy(value[i]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[i] = item;
    }
    return out;
  }
  if (kindOf(value) !== OBJECT) return NOT_PLAIN;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const v = source[key];
    if (v === undefined) continue;
    if (key === '__proto__') return NOT_PLAIN;
    const item = plainCopy(v);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    out[key] = item;
  }
  return out;
}

/**
 * Whether `value` holds an array or object at depth `maxDepth` or deeper (the value itself is depth 0), as
 * screenOutputJson counts. Iterative, and it stops at the limit, so no nesting can overflow the stack here; the
 * recursive walks (canonicalJson, JSON.stringify, cloning) are safe on what it accepts.
 */
export function exceedsJsonDepth(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth >= maxDepth) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** Stable serialization (sorted keys): equal values give equal strings, for hashing and duplicate checks. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value as object).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) setOwnField(out, key, sortKeys(v));
    }
    return out;
  }
  return value;
}

/**
 * `canonicalJson(a) === canonicalJson(b)` without building either string: diffing a session
 * compares every field after every step, and serializing both sides was most of that cost.
 * Anything that is not plain JSON data (undefined in an array, a Date, NaN, …) is left to the
 * serializing comparison, so the answer is always the same as that one's.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return plainEqual(a, b) ?? canonicalJson(a) === canonicalJson(b);
}

const PRIMITIVE = 0;
const ARRAY = 1;
const OBJECT = 2;
const OTHER = 3;

function kindOf(value: unknown): number {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return PRIMITIVE;
  if (typeof value === 'number') return Number.isFinite(value) ? PRIMITIVE : OTHER;
  if (Array.isArray(value)) return ARRAY;
  if (typeof value !== 'object') return OTHER;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null ? OBJECT : OTHER;
}

/** Equality of plain JSON values (object key order and undefined properties ignored); undefined: not plain. */
function plainEqual(a: unknown, b: unknown): boolean | undefined {
  if (a === b) return true;
  const kind = kindOf(a);
  const other = kindOf(b);
  if (kind === OTHER || other === OTHER) return undefined;
  if (kind !== other || kind === PRIMITIVE) return false;
  if (kind === ARRAY) return arraysEqual(a as unknown[], b as unknown[]);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

function arraysEqual(a: unknown[], b: unknown[]): boolean | undefined {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const equal = plainEqual(a[i], b[i]);
    if (equal !== true) return equal;
  }
  return true;
}

/** Properties canonicalJson keeps (undefined ones are dropped); -1 when one of them is not plain JSON. */
function definedCount(value: Record<string, unknown>): number {
  let count = 0;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined) continue;
    if (kindOf(v) === OTHER) return -1;
    count++;
  }
  return count;
}

function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean | undefined {
  const count = definedCount(a);
  const otherCount = definedCount(b);
  if (count < 0 || otherCount < 0) return undefined;
  if (count !== otherCount) return false;
  for (const key of Object.keys(a)) {
    const v = a[key];
    if (v === undefined) continue;
    if (!Object.hasOwn(b, key) || b[key] === undefined) return false;
    const equal = plainEqual(v, b[key]);
    if (equal !== true) return equal;
  }
  return true;
}

/** Parses text that should hold JSON; returns undefined instead of throwing. */
export function tryParseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
