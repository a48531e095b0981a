import type { Database } from '../pool';
import { ceLlmCallLog } from '../schema';

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
}

export async function insertLlmCall(db: Database, entry: LlmCallLogEntry): Promise<void> {
  await db.insert(ceLlmCallLog).values({
    ...entry,
    temperature: entry.temperature === null ? null : entry.temperature.toFixed(2),
  });
}
