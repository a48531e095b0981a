import { and, desc, eq, gte, sql } from 'drizzle-orm';
import { AuditStage } from '../../core/audit/payloads';
import { isJsonObject, type Json, type JsonObject } from '../../core/json';
import type { Payload } from '../../core/session';
import { committedOutcomeOf } from '../../core/turn/outcome';
import type { Database } from '../../db/pool';
import { ceAudit, ceConversation, ceConversationHistory } from '../../db/schema';
import type { TurnRef, TurnReply } from '../ports';

/** What a committed turn answered: the body of its 200, as the run's result would have said it. */
interface CommittedAnswer {
  intent: string;
  state: string;
  payload: Payload;
  context: JsonObject;
  status: string;
}

/**
 * The reply of a turn whose run ended in Temporal (terminated, cancelled, timed out) after its PersistConversation
 * committed it (turn_count reached it and its history row exists): COMPLETED, as its run would have answered, since
 * the conversation holds it whatever ended the run afterwards. Null when the turn did not commit. One rule for the
 * POST that waited on the run and the replays of its Idempotency-Key (outcome.ts); GET /conversation/{id}'s lastTurn
 * already reads a committed turn as COMPLETED (db-queries.ts).
 */
export async function committedTurnReply(db: Database, ref: TurnRef): Promise<TurnReply | null> {
  const [row] = await db
    .select({ conversation: ceConversation, output: ceConversationHistory.assistantOutput })
    .from(ceConversation)
    .innerJoin(
      ceConversationHistory,
      and(
        eq(ceConversationHistory.conversationId, ceConversation.conversationId),
        eq(ceConversationHistory.turnNumber, ref.turnNumber)
      )
    )
    .where(and(eq(ceConversation.conversationId, ref.conversationId), gte(ceConversation.turnCount, ref.turnNumber)));
  if (!row) return null;
  const { conversation } = row;
  // The turn's own ENGINE_RETURN row says what it committed, even once later turns have moved the conversation on;
  // without it (an audit policy that leaves it out), the conversation as it stands, the turn's when it is the last.
  const answer = (await engineReturnOf(db, ref)) ?? {
    intent: conversation.intentCode,
    state: conversation.stateCode,
    payload: storedPayload(row.output),
    context: conversation.contextJson as JsonObject,
    status: conversation.status,
  };
  const { intent, state, payload, context } = answer;
  const result = {
    success: true,
    conversationId: ref.conversationId,
    turnNumber: ref.turnNumber,
    turnId: ref.workflowId,
    intent,
    state,
    payload,
    context,
    outcome: committedOutcomeOf(answer.status, context),
    configVersion: conversation.configVersion ?? '',
  };
  return { kind: 'COMPLETED', ref, result };
}

/** The turn's latest ENGINE_RETURN row (PersistConversation writes it with the commit), read as its answer. */
async function engineReturnOf(db: Database, ref: TurnRef): Promise<CommittedAnswer | null> {
  const [row] = await db
    .select({ payload: sql<JsonObject>`${ceAudit.payloadJson}` })
    .from(ceAudit)
    .where(
      and(
        eq(ceAudit.conversationId, ref.conversationId),
        eq(ceAudit.turnNumber, ref.turnNumber),
        eq(ceAudit.stage, AuditStage.EngineReturn)
      )
    )
    .orderBy(desc(ceAudit.auditId))
    .limit(1);
  const final = row?.payload['final_result'];
  if (!isJsonObject(final) || !isJsonObject(final['context'])) return null;
  const { intent, state, payload } = final;
  if (typeof intent !== 'string' || typeof state !== 'string' || !isPayload(payload)) return null;
  const status = row?.payload['conversationStatus'];
  return { intent, state, payload, context: final['context'], status: typeof status === 'string' ? status : '' };
}

const isPayload = (value: Json | undefined): value is Payload =>
  isJsonObject(value) &&
  ((value['type'] === 'TEXT' && typeof value['value'] === 'string') || (value['type'] === 'JSON' && 'value' in value));

/** A history row's reply as the turn sent it: PersistConversation stores a text as itself, a JSON reply's value bare. */
function storedPayload(output: unknown): Payload {
  const stored = (output ?? null) as Json;
  return isPayload(stored) && stored.type === 'TEXT' ? stored : { type: 'JSON', value: stored };
}
