import { cloneJson, jsonEqual, setOwnField, type Json, type JsonObject } from '../json';
import type { Session } from '../session';

/** Changes to a string-keyed map (context, inputParams): keys replaced whole, keys removed. */
export interface KeyedPatch {
  set?: JsonObject;
  unset?: string[];
}

/**
 * What a step changed in the session. The workflow owns the session and applies patches in order
 * (applySessionPatch), so a step's result carries only what it changed, never the whole session.
 * `context` and `inputParams` are patched per key, everything else per field.
 */
export interface SessionPatch {
  set?: Partial<Omit<Session, KeyedField>>;
  unset?: string[];
  context?: KeyedPatch;
  inputParams?: KeyedPatch;
}

const KEYED_FIELDS = ['context', 'inputParams'] as const;
type KeyedField = (typeof KEYED_FIELDS)[number];

/*
 * Keys are data (a request's input params, a model's context keys), so presence is Object.hasOwn and fields are
 * written with setOwnField: `key in before` is true for Object.prototype's names (`constructor`, `toString`, …), so
 * their removal was never patched, and `set[key] = value` turned a `__proto__` key into a prototype.
 */
function diffKeyed(before: JsonObject, after: JsonObject): KeyedPatch | undefined {
  const patch: KeyedPatch = {};
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key) || !jsonEqual(before[key], value)) setOwnField((patch.set ??= {}), key, value);
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) (patch.unset ??= []).push(key);
  return patch.set || patch.unset ? patch : undefined;
}

/** The patch that turns `before` into `after` (both plain JSON sessions). */
export function diffSession(before: Session, after: Session): SessionPatch {
  const patch: SessionPatch = {};
  const b = before as unknown as Record<string, Json>;
  const a = after as unknown as Record<string, Json>;
  for (const [key, value] of Object.entries(a)) {
    if ((KEYED_FIELDS as readonly string[]).includes(key) || value === undefined) continue;
    if (!Object.hasOwn(b, key) || !jsonEqual(b[key], value)) setOwnField((patch.set ??= {}), key, value);
  }
  for (const key of Object.keys(b)) {
    if (!Object.hasOwn(a, key) || a[key] === undefined) (patch.unset ??= []).push(key);
  }
  for (const field of KEYED_FIELDS) {
    const keyed = diffKeyed(before[field] ?? {}, after[field] ?? {});
    if (keyed) patch[field] = keyed;
  }
  return patch;
}

function applyKeyed(target: JsonObject, patch: KeyedPatch | undefined): JsonObject {
  if (!patch) return target;
  const next: JsonObject = { ...target };
  for (const key of patch.unset ?? []) delete next[key];
  for (const [key, value] of Object.entries(patch.set ?? {})) setOwnField(next, key, cloneJson(value));
  return next;
}

/**
 * Applies a patch without touching `session` (a new object is returned). Deterministic: the same
 * session and patch always give the same result, so workflow code can run it on replay.
 */
export function applySessionPatch(session: Session, patch: SessionPatch): Session {
  const next = { ...session } as unknown as Record<string, Json>;
  for (const key of patch.unset ?? []) delete next[key];
  for (const [key, value] of Object.entries(patch.set ?? {})) setOwnField(next, key, cloneJson(value as Json));
  const result = next as unknown as Session;
  result.context = applyKeyed(session.context, patch.context);
  result.inputParams = applyKeyed(session.inputParams, patch.inputParams);
  return result;
}

/** The names of what a patch changes, for readable activity results (`context.mcp`, `intent`, …). */
export function patchedPaths(patch: SessionPatch): string[] {
  const paths = [...Object.keys(patch.set ?? {}), ...(patch.unset ?? []).map((k) => `-${k}`)];
  for (const field of KEYED_FIELDS) {
    const keyed = patch[field];
    if (!keyed) continue;
    // One push per key: spreading a patch's keys into push() passes one argument each, unbounded.
    for (const key of Object.keys(keyed.set ?? {})) paths.push(`${field}.${key}`);
    for (const key of keyed.unset ?? []) paths.push(`-${field}.${key}`);
  }
  return paths;
}
