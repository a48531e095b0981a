import { searchConversations } from '../../api/console/conversation-search';
import { ensureConversation } from '../../db/repositories/conversation';
import { ceConversationHistory } from '../../db/schema';
import type { TestDatabase } from './database';

/** One conversation's first turn: its id, what the user wrote, what the reply stored (persist-conversation.ts). */
export type SaidTurn = readonly [conversationId: string, userInput: string, assistantOutput: unknown];

/** Each conversation of `said` with its first turn committed (a history row), as the console search reads them. */
export async function conversationsSaying(tdb: TestDatabase, said: readonly SaidTurn[]): Promise<void> {
  for (const [conversationId, userInput, assistantOutput] of said) {
    await ensureConversation(tdb.db, conversationId);
    await tdb.db.insert(ceConversationHistory).values({ conversationId, turnNumber: 1, userInput, assistantOutput });
  }
}

/** The ids, sorted, of the conversations the console search finds by `q`. */
export async function foundBy(tdb: TestDatabase, q: string): Promise<string[]> {
  return (await searchConversations(tdb.db, { q, limit: 10 })).items.map((c) => c.conversationId).sort();
}
