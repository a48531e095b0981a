import type { JsonObject } from '../json';
import { safeInputParams } from '../params/safe';
import type { Session } from '../session';
import { payloadFact, sessionDict } from '../session-view';

/**
 * The document JSON_PATH rules are evaluated against (§3.4), built fresh for every evaluation:
 * context keys at the top level (so legacy `$.mcp.finalAnswer` works), then the session keys
 * (which shadow context keys of the same name, e.g. `state`), then the safe input params under
 * `inputParams`, then the current payload if one is set.
 */
export function buildFacts(session: Session, schemaJson: JsonObject): JsonObject {
  const facts: JsonObject = { ...session.context, ...sessionDict(session, schemaJson) };
  facts['inputParams'] = safeInputParams(session.inputParams);
  const payload = payloadFact(session);
  if (payload !== undefined) facts['payload'] = payload;
  return facts;
}
