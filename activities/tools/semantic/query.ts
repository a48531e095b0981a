import { readSetting } from '../../../core/config/setting';
import { McpSemanticSettings } from '../../../core/config/settings/mcp';
import { EngineError, ErrorType } from '../../../core/errors';
import { isJsonObject, type Json, type JsonObject } from '../../../core/json';
import { SemanticTool } from '../../../core/mcp/constants';
import { semanticCatalog } from '../../../core/mcp/semantic-catalog';
import { toPositionalParams, type SqlVerdict } from '../../../core/sql';
import { guardToolSql } from '../sql/guard';
import type { ToolHandlerContext } from '../deps';
import { SEMANTIC_LLM_STAGES, semanticLlmCall } from './llm';

/**
 * `db.semantic.query` (§7.4): the LLM writes one parameterized SELECT for the canonical intent.
 * Every candidate goes through the read-only guardrail and a parameter check; a refused one is
 * sent back with the reason, up to SQL_RETRY_MAX_ATTEMPTS, and then the tool answers
 * "unsupported" with that reason instead of running anything.
 */
const QUERY_SCHEMA: JsonObject = {
  type: 'object',
  required: ['sql', 'params'],
  properties: {
    sql: { type: ['string', 'null'] },
    params: { type: 'object' },
    unsupported: { type: 'boolean' },
    reason: { type: ['string', 'null'] },
  },
};

function canonicalIntentOf(ctx: ToolHandlerContext): JsonObject {
  const intent = ctx.args['canonicalIntent'] ?? ctx.args['canonical_intent'];
  if (!isJsonObject(intent) || Object.keys(intent).length === 0) {
    throw new EngineError(
      ErrorType.ToolArgsInvalid,
      'db.semantic.query needs canonicalIntent; run db.semantic.interpret first',
      {
        details: { toolCode: ctx.toolCode },
      }
    );
  }
  return intent;
}

function questionOf(ctx: ToolHandlerContext): string {
  const q = ctx.args['question'] ?? ctx.args['query'] ?? ctx.args['user_input'];
  return typeof q === 'string' && q.trim() !== '' ? q : ctx.session.standaloneQuery || ctx.session.userText;
}

type Candidate =
  | { kind: 'sql'; sql: string; params: JsonObject }
  | { kind: 'unsupported'; reason: string }
  | { kind: 'invalid'; reason: string };

/** Why a generated statement cannot run, or null when it can. */
export function candidateProblem(sql: string, params: JsonObject, guard: (sql: string) => SqlVerdict): string | null {
  const verdict = guard(sql);
  if (!verdict.allowed) return verdict.reason;
  const { names, positionalCount } = toPositionalParams(sql);
  if (positionalCount > 0) return 'SQL must use named parameters (:name), not $n.';
  const missing = names.filter((n) => params[n] === undefined);
  return missing.length > 0 ? `SQL uses parameters without values: ${missing.map((n) => `:${n}`).join(', ')}.` : null;
}

function candidateOf(json: Json, guard: (sql: string) => SqlVerdict): Candidate {
  if (!isJsonObject(json)) return { kind: 'invalid', reason: 'The answer was not a JSON object.' };
  if (json['unsupported'] === true) {
    return {
      kind: 'unsupported',
      reason:
        typeof json['reason'] === 'string' && json['reason']
          ? json['reason']
          : 'This question cannot be answered with a read-only query.',
    };
  }
  const sql = typeof json['sql'] === 'string' ? json['sql'].trim() : '';
  if (sql === '') return { kind: 'invalid', reason: 'The answer had no SQL.' };
  const params = isJsonObject(json['params']) ? json['params'] : {};
  const problem = candidateProblem(sql, params, guard);
  return problem ? { kind: 'invalid', reason: problem } : { kind: 'sql', sql, params };
}

function queryResult(
  compiled: { sql: string | null; params: JsonObject },
  guardrail: JsonObject,
  unsupportedMessage: string | null
): JsonObject {
  const supported = unsupportedMessage === null;
  return {
    meta: {
      tool: SemanticTool.query,
      version: 'v2',
      needsClarification: false,
      operationSupported: supported,
      unsupported: !supported,
      unsupportedMessage,
    },
    ast: null,
    compiledSql: compiled,
    guardrail,
  };
}

export async function runSemanticQuery(ctx: ToolHandlerContext): Promise<Json> {
  const canonicalIntent = canonicalIntentOf(ctx);
  const guard = (sql: string) => guardToolSql(ctx, sql);
  const attempts = readSetting(ctx.snapshot, McpSemanticSettings.sqlRetryMaxAttempts);
  const prompts = {
    system: readSetting(ctx.snapshot, McpSemanticSettings.querySystemPrompt),
    user: readSetting(ctx.snapshot, McpSemanticSettings.queryUserPrompt),
    source: 'ce_config(SemanticLlmQueryService)',
  };
  const base = {
    question: questionOf(ctx),
    canonical_intent: canonicalIntent,
    semantic_catalog: semanticCatalog(ctx.snapshot),
  };
  let feedback = '';
  let lastReason = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const out = await semanticLlmCall(ctx, {
      kind: 'SEMANTIC_QUERY',
      stages: attempt === 1 ? SEMANTIC_LLM_STAGES.query : SEMANTIC_LLM_STAGES.queryRetry,
      prompts,
      extra: { ...base, retry_feedback: feedback, attempt },
      schema: QUERY_SCHEMA,
    });
    const candidate = out.ok
      ? candidateOf(out.json, guard)
      : { kind: 'invalid' as const, reason: `The answer was not valid JSON (${out.error}).` };
    if (candidate.kind === 'sql') {
      return queryResult(
        { sql: candidate.sql, params: candidate.params },
        { allowed: true, reason: 'Read-only query.' },
        null
      );
    }
    if (candidate.kind === 'unsupported')
      return queryResult({ sql: null, params: {} }, { allowed: false, reason: candidate.reason }, candidate.reason);
    ctx.audit('SEMANTIC_QUERY_ERROR', { attempt, reason: candidate.reason });
    lastReason = candidate.reason;
    feedback = `Your previous answer was refused: ${candidate.reason} Write a different single read-only SELECT.`;
  }
  const message = `I can only run read-only queries, and no safe query could be written for this request (${lastReason})`;
  return queryResult({ sql: null, params: {} }, { allowed: false, reason: lastReason }, message);
}
