import { and, asc, eq, inArray } from 'drizzle-orm';
import { AuditStage } from '../../core/audit/payloads';
import type { Database } from '../../db/pool';
import { readStageRows } from '../../core/audit/read';
import type { JsonObject } from '../../core/json';
import { insertAudits } from '../../db/repositories/audit';
import { publicAuditPayload } from '../db-queries';
import type { RunInput } from './turn-runs';
import { ceAudit } from '../../db/schema';
import type { ConversationPage, OperatorActionRecord, ParkedStatus, TurnAuditRow } from './ports';

/**
 * A conversation shown by its parked status (AWAITING_APPROVAL, HELD) while a turn of it is parked, whatever its row
 * says (RUNNING until the turn ends): the one rule of the list and the conversation page, so both say the same.
 */
export function showParked<C extends { conversationId: string; status: string }>(
  conversation: C,
  parked: ReadonlyMap<string, ParkedStatus>
): C {
  return { ...conversation, status: parked.get(conversation.conversationId) ?? conversation.status };
}

/** The page with each parked conversation shown by its parked status (showParked). */
export function showParkedPage(page: ConversationPage, parked: ReadonlyMap<string, ParkedStatus>): ConversationPage {
  return { ...page, items: page.items.map((c) => showParked(c, parked)) };
}

/** Writes (or rewrites, with its result) the OPERATOR_ACTION row of one SRE action. */
export async function recordOperatorAction(db: Database, record: OperatorActionRecord): Promise<void> {
  await insertAudits(db, [
    {
      conversationId: record.conversationId,
      turnNumber: record.turnNumber,
      stage: AuditStage.OperatorAction,
      payload: record.payload,
      idempotencyKey: `${record.workflowId}/operator/${record.actionId}`,
      // Not any run's: the action is the operator's, and stays with whichever run the turn ends with.
      runId: null,
      workflowId: record.workflowId,
    },
  ]);
}

/** A stored row as the console shows it: its step call (the key's second segment, after `<turn id>@<run id>`). */
function turnAuditRow(row: typeof ceAudit.$inferSelect): TurnAuditRow {
  return {
    auditId: row.auditId,
    conversationId: row.conversationId,
    turnNumber: row.turnNumber,
    stage: row.stage,
    runId: row.runId,
    callKey: row.idempotencyKey.split('/')[1] ?? '',
    payload: publicAuditPayload(row.stage, row.payloadJson as JsonObject),
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The audit rows of one turn, oldest first, each with the step call that wrote it and its run: every run of the
 * turn (a failed one, its retry) has rows of its own. One statement on the (conversation_id, turn_number, audit_id)
 * index (migration 0020), however long the conversation is.
 */
export async function turnAudits(db: Database, conversationId: string, turnNumber: number): Promise<TurnAuditRow[]> {
  const rows = await db
    .select()
    .from(ceAudit)
    .where(and(eq(ceAudit.conversationId, conversationId), eq(ceAudit.turnNumber, turnNumber)))
    .orderBy(asc(ceAudit.auditId));
  return rows.map(turnAuditRow);
}

/**
 * What the user said in each of `turnNumbers`, run by run, from their USER_INPUT rows: one statement for all of them
 * (the conversation page's turns), never one per turn. A turn number has several runs when a failed turn was retried
 * or a new message took its number.
 */
export async function auditedUserInputs(
  db: Database,
  conversationId: string,
  turnNumbers: readonly number[]
): Promise<Map<number, RunInput[]>> {
  const said = new Map<number, RunInput[]>(turnNumbers.map((turnNumber) => [turnNumber, []]));
  if (turnNumbers.length === 0) return said;
  const rows = await db
    .select()
    .from(ceAudit)
    .where(
      and(
        eq(ceAudit.conversationId, conversationId),
        inArray(ceAudit.turnNumber, [...turnNumbers]),
        eq(ceAudit.stage, AuditStage.UserInput)
      )
    )
    .orderBy(asc(ceAudit.auditId));
  for (const { row, payload } of readStageRows(rows.map(turnAuditRow), AuditStage.UserInput))
    if (row.turnNumber !== null) said.get(row.turnNumber)?.push({ runId: row.runId, text: payload.text });
  return said;
}
