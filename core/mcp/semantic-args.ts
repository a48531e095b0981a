import { toolCodeKey } from '../config/vocabulary';
import { isJsonObject, type JsonObject } from '../json';
import { SemanticTool } from './constants';
import type { McpObservation } from './context';

/**
 * The semantic chain passes data from tool to tool without the planner copying it (§7.4):
 * `db.semantic.query` gets the canonical intent of the latest interpret result, `postgres.query`
 * the compiled SQL and params of the latest query result. Args the planner did give win.
 */
function latestResult(observations: readonly McpObservation[], toolCode: string): JsonObject | null {
  for (let i = observations.length - 1; i >= 0; i--) {
    const o = observations[i];
    if (o && toolCodeKey(o.toolCode) === toolCode && isJsonObject(o.result)) return o.result;
  }
  return null;
}

export function enrichSemanticArgs(
  toolCode: string,
  args: JsonObject,
  observations: readonly McpObservation[]
): JsonObject {
  const code = toolCodeKey(toolCode);
  const out: JsonObject = { ...args };
  if (code === SemanticTool.query && out['canonicalIntent'] === undefined && out['canonical_intent'] === undefined) {
    const intent = latestResult(observations, SemanticTool.interpret)?.['canonicalIntent'];
    if (isJsonObject(intent)) out['canonicalIntent'] = intent;
  }
  if (code === SemanticTool.postgres && out['query'] === undefined && out['sql'] === undefined) {
    const compiled = latestResult(observations, SemanticTool.query)?.['compiledSql'];
    if (isJsonObject(compiled) && typeof compiled['sql'] === 'string' && compiled['sql'].trim() !== '') {
      out['query'] = compiled['sql'];
      if (isJsonObject(compiled['params'])) out['params'] = compiled['params'];
    }
  }
  return out;
}

/** D6: a successful interpret this turn means one that resolved a canonical intent. */
export function hasResolvedInterpret(observations: readonly McpObservation[]): boolean {
  return observations.some(
    (o) =>
      toolCodeKey(o.toolCode) === SemanticTool.interpret &&
      isJsonObject(o.result) &&
      isJsonObject(o.result['canonicalIntent'])
  );
}
