import { cloneJson, jsonEqual, type Json, type JsonObject } from '../json';
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

function diffKeyed(before: JsonObject, after: JsonObject): KeyedPatch | undefined {
  const patch: KeyedPatch = {};
  for (const [key, value] of Object.entries(after)) {
    if (!(key in before) || !jsonEqual(before[key], value)) (patch.set ??= {})[key] = value;
  }
  for (const key of Object.keys(before)) if (!(key in after)) (patch.unset ??= []).push(key);
  return patch.set || patch.unset ? patch : undefined;
}

/** The patch that turns `before` into `after` (both plain JSON sessions). */
export function diffSession(before: Session, after: Session): SessionPatch {
  const patch: SessionPatch = {};
  const b = before as unknown as Record<string, Json>;
  const a = after as unknown as Record<string, Json>;
  for (const [key, value] of Object.entries(a)) {
    if ((KEYED_FIELDS as readonly string[]).includes(key) || value === undefined) continue;
    if (!(key in b) || !jsonEqual(b[key], value)) ((patch.set ??= {}) as Record<string, Json>)[key] = value;
  }
  for (const key of Object.keys(b)) {
    if (!(key in a) || a[key] === undefined) (patch.unset ??= []).push(key);
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
  for (const [key, value] of Object.entries(patch.set ?? {})) next[key] = cloneJson(value);
  return next;
}

/**
 * Applies a patch without touching `session` (a new object is returned). Deterministic: the same
 * session and patch always give the same result, so workflow code can run it on replay.
 */
export function applySessionPatch(session: Session, patch: SessionPatch): Session {
  const next = { ...session } as unknown as Record<string, Json>;
  for (const key of patch.unset ?? []) delete next[key];
  for (const [key, value] of Object.entries(patch.set ?? {})) next[key] = cloneJson(value as Json);
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
    paths.push(...Object.keys(keyed.set ?? {}).map((k) => `${field}.${k}`));
    paths.push(...(keyed.unset ?? []).map((k) => `-${field}.${k}`));
  }
  return paths;
}
