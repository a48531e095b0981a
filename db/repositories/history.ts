import { desc, eq } from 'drizzle-orm';
import type { Json } from '../../core/json';
import type { HistoryTurn } from '../../core/session';
import type { Database } from '../pool';
import { ceConversationHistory } from '../schema';

/** The most recent committed turns of a conversation, newest first. */
export async function recentHistory(db: Database, conversationId: string, limit: number): Promise<HistoryTurn[]> {
  const rows = await db
    .select()
    .from(ceConversationHistory)
    .where(eq(ceConversationHistory.conversationId, conversationId))
    .orderBy(desc(ceConversationHistory.turnNumber))
    .limit(limit);
  return rows.map((r) => ({
    turnNumber: r.turnNumber,
    userInput: r.userInput ?? '',
    assistantOutput: (r.assistantOutput ?? null) as Json | null,
  }));
}
