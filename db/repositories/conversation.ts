import { and, eq, sql } from 'drizzle-orm';
import type { Json, JsonObject } from '../../core/json';
import type { Database } from '../pool';
import { ceConversation, ceConversationHistory } from '../schema';

export interface ConversationRecord {
  conversationId: string;
  status: string;
  intentCode: string;
  stateCode: string;
  context: JsonObject;
  lastUserText: string | null;
  lastAssistantJson: Json | null;
  inputParams: JsonObject;
  turnCount: number;
  configVersion: string | null;
}

function toRecord(row: typeof ceConversation.$inferSelect): ConversationRecord {
  return {
    conversationId: row.conversationId,
    status: row.status,
    intentCode: row.intentCode,
    stateCode: row.stateCode,
    context: (row.contextJson ?? {}) as JsonObject,
    lastUserText: row.lastUserText,
    lastAssistantJson: (row.lastAssistantJson ?? null) as Json | null,
    inputParams: (row.inputParamsJson ?? {}) as JsonObject,
    turnCount: row.turnCount,
    configVersion: row.configVersion,
  };
}

/** Creates the row of a new conversation; a no-op when it exists (concurrent creators agree). */
export async function ensureConversation(db: Database, conversationId: string): Promise<void> {
  await db.insert(ceConversation).values({ conversationId }).onConflictDoNothing({
    target: ceConversation.conversationId,
  });
}

export async function findConversation(db: Database, conversationId: string): Promise<ConversationRecord | null> {
  const rows = await db.select().from(ceConversation).where(eq(ceConversation.conversationId, conversationId));
  const row = rows[0];
  return row ? toRecord(row) : null;
}

/** Committed turns of a conversation (0 when it does not exist yet). */
export async function committedTurnCount(db: Database, conversationId: string): Promise<number> {
  const rows = await db
    .select({ turnCount: ceConversation.turnCount })
    .from(ceConversation)
    .where(eq(ceConversation.conversationId, conversationId));
  return rows[0]?.turnCount ?? 0;
}

export interface TurnCommit {
  conversationId: string;
  turnNumber: number;
  status: string;
  intentCode: string;
  stateCode: string;
  context: JsonObject;
  lastUserText: string;
  lastAssistantJson: Json | null;
  inputParams: JsonObject;
  configVersion: string;
  historyUserInput: string;
  historyAssistantOutput: Json | null;
}

export type CommitOutcome = 'COMMITTED' | 'ALREADY_COMMITTED' | 'STALE';

/**
 * Commits one turn in a single transaction: the conversation row moves from turn n-1 to n
 * (optimistic on turn_count) and the history row of turn n is added. A retry of a turn that
 * already committed finds its history row and changes nothing; any other mismatch is STALE.
 */
export async function commitTurn(db: Database, commit: TurnCommit): Promise<CommitOutcome> {
  return db.transaction(async (tx) => {
    const updated = await tx
      .update(ceConversation)
      .set({
        status: commit.status,
        intentCode: commit.intentCode,
        stateCode: commit.stateCode,
        contextJson: commit.context,
        lastUserText: commit.lastUserText,
        lastAssistantJson: commit.lastAssistantJson,
        inputParamsJson: commit.inputParams,
        configVersion: commit.configVersion,
        turnCount: commit.turnNumber,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(ceConversation.conversationId, commit.conversationId),
          eq(ceConversation.turnCount, commit.turnNumber - 1)
        )
      )
      .returning({ id: ceConversation.conversationId });
    if (updated.length === 0) return alreadyCommitted(tx, commit);
    await tx.insert(ceConversationHistory).values({
      conversationId: commit.conversationId,
      turnNumber: commit.turnNumber,
      userInput: commit.historyUserInput,
      assistantOutput: commit.historyAssistantOutput,
    });
    return 'COMMITTED';
  });
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

async function alreadyCommitted(tx: Tx, commit: TurnCommit): Promise<CommitOutcome> {
  const rows = await tx
    .select({ userInput: ceConversationHistory.userInput })
    .from(ceConversationHistory)
    .where(
      and(
        eq(ceConversationHistory.conversationId, commit.conversationId),
        eq(ceConversationHistory.turnNumber, commit.turnNumber)
      )
    );
  const row = rows[0];
  return row && row.userInput === commit.historyUserInput ? 'ALREADY_COMMITTED' : 'STALE';
}
