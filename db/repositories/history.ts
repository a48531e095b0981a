import type { Json } from '../../core/json';
import type { HistoryTurn } from '../../core/session';
import type { Database } from '../pool';
import { runStatement, type Statement } from '../statements';

/** The `$2` most recent history rows of conversation `$1`, newest first (also inside ce_conversation_load_v1). */
export const RECENT_HISTORY_SQL = `SELECT turn_number, user_input, assistant_output FROM ce_conversation_history
          WHERE conversation_id = $1 ORDER BY turn_number DESC LIMIT $2`;

const RECENT: Statement = {
  name: 'ce_conversation_history_recent_v1',
  resendable: true,
  text: RECENT_HISTORY_SQL,
};

/** A ce_conversation_history row as read (also as a jsonb object, by ce_conversation_load_v1). */
export interface HistoryRow {
  turn_number: number;
  user_input: string | null;
  assistant_output: Json | null;
}

export function toHistoryTurn(row: HistoryRow): HistoryTurn {
  return {
    turnNumber: row.turn_number,
    userInput: row.user_input ?? '',
    assistantOutput: row.assistant_output ?? null,
  };
}

/** The most recent committed turns of a conversation, newest first. */
export async function recentHistory(db: Database, conversationId: string, limit: number): Promise<HistoryTurn[]> {
  const rows = await runStatement<HistoryRow>(db, RECENT, [conversationId, limit]);
  return rows.map(toHistoryTurn);
}
