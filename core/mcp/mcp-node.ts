import { isJsonObject, type Json, type JsonObject } from '../json';
import type { Session } from '../session';

/** `context.mcp`, created when missing. */
export function mcpContext(session: Session): JsonObject {
  const existing = session.context['mcp'];
  if (isJsonObject(existing)) return existing;
  const created: JsonObject = {};
  session.context['mcp'] = created;
  return created;
}

export function readMcp(session: Pick<Session, 'context'>): JsonObject | null {
  const mcp = session.context['mcp'];
  return isJsonObject(mcp) ? mcp : null;
}

/** A child object of `parent`, created when missing. */
export function childObject(parent: JsonObject, key: string): JsonObject {
  const existing = parent[key];
  if (isJsonObject(existing)) return existing;
  const created: JsonObject = {};
  parent[key] = created;
  return created;
}

export function setParam(session: Session, key: string, value: Json): void {
  session.inputParams[key] = value;
}
