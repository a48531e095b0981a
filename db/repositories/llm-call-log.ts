import type { Database } from '../pool';
import { runStatement, type Statement } from '../statements';

export interface LlmCallLogEntry {
  conversationId: string | null;
  turnNumber: number | null;
  callKind: string;
  intentCode: string | null;
  stateCode: string | null;
  provider: string;
  model: string | null;
  temperature: number | null;
  promptText: string;
  userContext: string | null;
  responseText: string | null;
  success: boolean;
  errorMessage: string | null;
  latencyMs: number;
  /** The Temporal run of the activity that made the call; null in process. */
  runId: string | null;
}

const INSERT: Statement = {
  name: 'ce_llm_call_log_insert_v2',
  text: `INSERT INTO ce_llm_call_log (conversation_id, turn_number, call_kind, intent_code, state_code, provider, model,
    temperature, prompt_text, user_context, response_text, success, error_message, latency_ms, run_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
};

/** One row per LLM call, several per turn: a prepared statement rather than a drizzle insert built each time. */
export async function insertLlmCall(db: Database, entry: LlmCallLogEntry): Promise<void> {
  await runStatement(db, INSERT, [
    entry.conversationId,
    entry.turnNumber,
    entry.callKind,
    entry.intentCode,
    entry.stateCode,
    entry.provider,
    entry.model,
    entry.temperature === null ? null : entry.temperature.toFixed(2),
    entry.promptText,
    entry.userContext,
    entry.responseText,
    entry.success,
    entry.errorMessage,
    entry.latencyMs,
    entry.runId,
  ]);
}
