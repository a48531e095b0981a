import { insertLlmCall } from '../../db/repositories/llm-call-log';
import type { Database } from '../../db/pool';
import { currentRunId } from '../runtime/activity-context';
import type { LlmCallRecord } from './anthropic-client';

/** Writes every LLM call to ce_llm_call_log (prompt, answer, outcome, latency). */
export function llmCallLogger(db: Database, provider = 'anthropic'): (entry: LlmCallRecord) => Promise<void> {
  return async (entry) => {
    const { request } = entry;
    await insertLlmCall(db, {
      conversationId: request.meta.conversationId || null,
      turnNumber: request.meta.turnNumber,
      callKind: request.kind,
      intentCode: request.meta.intent,
      stateCode: request.meta.state,
      provider,
      model: entry.model,
      temperature: request.temperature ?? null,
      promptText: `${request.systemPrompt}\n\n${request.userPrompt}`,
      userContext: request.schema ? JSON.stringify({ schema: request.schema }) : null,
      responseText: entry.responseText,
      success: entry.success,
      errorMessage: entry.errorMessage,
      latencyMs: Math.round(entry.latencyMs),
      runId: currentRunId(),
    });
  };
}
