import { desc, eq } from 'drizzle-orm';
import type { JsonObject } from '../core/json';
import type { Database } from '../db/pool';
import { listAudits } from '../db/repositories/audit';
import { ceConversation, ceConversationHistory } from '../db/schema';
import type { AuditRowView, ConversationQueries, ConversationView } from './ports';

const HISTORY_LIMIT = 50;
const AUDIT_PAGE = 1000;

/** Read-only views of conversations and their audit trail for the API. */
export function conversationQueries(db: Database): ConversationQueries {
  return {
    async conversation(conversationId: string): Promise<ConversationView | null> {
      const [row] = await db.select().from(ceConversation).where(eq(ceConversation.conversationId, conversationId));
      if (!row) return null;
      const history = await db
        .select()
        .from(ceConversationHistory)
        .where(eq(ceConversationHistory.conversationId, conversationId))
        .orderBy(desc(ceConversationHistory.turnNumber))
        .limit(HISTORY_LIMIT);
      return {
        conversationId: row.conversationId,
        status: row.status,
        intent: row.intentCode,
        state: row.stateCode,
        context: row.contextJson as JsonObject,
        inputParams: row.inputParamsJson as JsonObject,
        lastAssistant: row.lastAssistantJson,
        turnCount: row.turnCount,
        configVersion: row.configVersion,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        history: history.reverse().map((h) => ({
          turnNumber: h.turnNumber,
          userInput: h.userInput,
          assistantOutput: h.assistantOutput,
          createdAt: h.createdAt.toISOString(),
        })),
      };
    },

    async audits(conversationId: string, afterAuditId = 0): Promise<AuditRowView[]> {
      const rows = await listAudits(db, conversationId, { afterAuditId, limit: AUDIT_PAGE });
      return rows.map(({ idempotencyKey: _key, createdAt, ...row }) => ({
        ...row,
        createdAt: createdAt.toISOString(),
      }));
    },
  };
}
