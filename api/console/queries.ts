import { and, asc, count, desc, eq, inArray, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { AuditStage } from '../../core/audit/payloads';
import { normalizeScopeValue } from '../../core/config/scope';
import type { Database } from '../../db/pool';
import { textMatches } from '../../db/search-collation';
import { readStageRows } from '../../core/audit/read';
import type { JsonObject } from '../../core/json';
import { insertAudits } from '../../db/repositories/audit';
import { publicAuditPayload } from '../db-queries';
import type { RunInput } from './turn-runs';
import { ceAudit, ceConversation, ceConversationHistory } from '../../db/schema';
import {
  PARKED_STATUSES,
  type ConversationCursor,
  type ConversationPage,
  type ConversationSearch,
  type OperatorActionRecord,
  type ParkedStatus,
  type TurnAuditRow,
} from './ports';

/** `%` and `_` in a search are literal text, not patterns. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A reply's scalars: strings and numbers, never the keys or punctuation of the JSON they sit in. */
const SCALARS = '? (@.type() == "string" || @.type() == "number")';

/**
 * The text a reply shows, as the commit stores it (activities/pipeline/persist-conversation.ts): a TEXT reply is
 * `{type: "TEXT", value}` and is searched under `value`; a JSON reply is the model's or the response's JSON as it is,
 * searched in all its values; a bare string as it is. Not the stored JSON's keys, quotes and escapes.
 */
function replyTextMatches(pattern: string): SQL {
  return sql`(CASE WHEN jsonb_typeof(h.assistant_output) = 'string' THEN ${textMatches(sql`h.assistant_output #>> '{}'`, pattern)}
    ELSE EXISTS (SELECT 1 FROM jsonb_path_query(h.assistant_output,
      CASE WHEN h.assistant_output @> '{"type": "TEXT"}' AND h.assistant_output ? 'value'
        THEN ${`lax $.value.** ${SCALARS}`} ELSE ${`lax $.** ${SCALARS}`} END::jsonpath) AS said(v)
    WHERE ${textMatches(sql`said.v #>> '{}'`, pattern)}) END)`;
}

/**
 * The status filter: a parked status (AWAITING_APPROVAL, HELD) is the conversations parked so, whatever their row
 * says; a stored status is the rows that have it and are not parked (the list shows those by their parked status).
 */
function statusFilter(status: string, parkedNow: ReadonlyMap<string, ParkedStatus> = new Map()): SQL | undefined {
  if ((PARKED_STATUSES as readonly string[]).includes(status)) {
    const ids = [...parkedNow].filter(([, parked]) => parked === status).map(([id]) => id);
    return ids.length > 0 ? inArray(ceConversation.conversationId, ids) : sql`false`;
  }
  const parked = [...parkedNow.keys()];
  const stored = eq(ceConversation.status, status);
  return parked.length > 0 ? and(stored, notInArray(ceConversation.conversationId, parked)) : stored;
}

/**
 * What the user typed in any turn run, from its USER_INPUT audit row: a turn that failed commits nothing (no history
 * row, no last_user_text), so its message is only there, also once a later message took its turn number. Read through
 * the partial index of USER_INPUT rows (migration 0021): one row per run, not every audit row of the conversation. The
 * stage is written in the statement, not bound: a bound one would keep a generic plan from using the partial index.
 */
function userInputRowMatches(pattern: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${ceAudit} a WHERE a.conversation_id = ${ceConversation.conversationId}
    AND a.stage = 'USER_INPUT' AND ${textMatches(sql`a.payload_json ->> 'text'`, pattern)})`;
}

type CodeColumn = typeof ceConversation.intentCode | typeof ceConversation.stateCode;

/**
 * The spellings of `column` stored in ce_conversation that name `code`, as the engine compares codes: trimmed and
 * upper-cased by JavaScript (core/config/scope.ts normalizeScopeValue), so `faq` finds FAQ, `STRASSE_ZUSTAND` finds
 * straße_zustand (ß upper-cases to SS) and `review` finds REVIEW on any database. PostgreSQL's upper() follows the
 * database's locale (under tr-TR upper('review') is REVİEW, and libc's keeps ß), and even ICU's follows the server's
 * Unicode version, not Node's; so the stored spellings, few, are folded here, and rows are matched on them as stored.
 */
async function storedSpellings(db: Database, column: CodeColumn, code: string): Promise<string[]> {
  const wanted = normalizeScopeValue(code);
  const rows = await db.selectDistinct({ stored: column }).from(ceConversation);
  return rows.map(({ stored }) => stored).filter((stored) => normalizeScopeValue(stored) === wanted);
}

/** The intent and state filters: the rows whose code is one of the spellings that name the one asked for. */
async function codeFilters(db: Database, search: ConversationSearch): Promise<SQL[]> {
  const filters: Promise<SQL>[] = [];
  for (const [column, code] of [
    [ceConversation.intentCode, search.intent],
    [ceConversation.stateCode, search.state],
  ] as const) {
    if (!code) continue;
    filters.push(
      storedSpellings(db, column, code).then((spellings) =>
        spellings.length > 0 ? inArray(column, spellings) : sql`false`
      )
    );
  }
  return Promise.all(filters);
}

function searchFilter(search: ConversationSearch, codes: readonly SQL[]): SQL | undefined {
  const filters: SQL[] = [...codes];
  const status = search.status && statusFilter(search.status, search.parked);
  if (status) filters.push(status);
  const q = search.q?.trim();
  if (q) {
    const pattern = containsPattern(q);
    const text = or(
      textMatches(sql`${ceConversation.conversationId}::text`, pattern),
      textMatches(sql`${ceConversation.lastUserText}`, pattern),
      sql`EXISTS (SELECT 1 FROM ${ceConversationHistory} h WHERE h.conversation_id = ${ceConversation.conversationId}
        AND (${textMatches(sql`h.user_input`, pattern)} OR ${replyTextMatches(pattern)}))`,
      userInputRowMatches(pattern)
    );
    if (text) filters.push(text);
  }
  return filters.length > 0 ? and(...filters) : undefined;
}

/** updated_at to the microsecond since the epoch (extract is exact numeric on PostgreSQL 14 and later). */
const UPDATED_AT_MICROS = sql<string>`floor(extract(epoch from ${ceConversation.updatedAt}) * 1000000)::bigint::text`;

/** The rows after a cursor in the list's order: (updated_at, id) descending, so an equal updated_at goes by id. */
function afterCursor(cursor: ConversationCursor): SQL {
  return sql`(${ceConversation.updatedAt}, ${ceConversation.conversationId}) <
    ('epoch'::timestamptz + ${cursor.updatedAtMicros}::bigint * interval '1 microsecond', ${cursor.conversationId}::uuid)`;
}

/**
 * The console's conversation list: newest activity first, one page, by keyset. A conversation a turn moves to the
 * top while a caller pages never repeats a row nor pushes one off the next page (as an offset did); it is on the
 * first page again.
 */
export async function searchConversations(db: Database, search: ConversationSearch): Promise<ConversationPage> {
  const where = searchFilter(search, await codeFilters(db, search));
  const [rows, [total]] = await Promise.all([
    db
      .select({ row: ceConversation, updatedAtMicros: UPDATED_AT_MICROS })
      .from(ceConversation)
      .where(search.after ? and(where, afterCursor(search.after)) : where)
      .orderBy(desc(ceConversation.updatedAt), desc(ceConversation.conversationId))
      .limit(search.limit + 1),
    db.select({ n: count() }).from(ceConversation).where(where),
  ]);
  const page = rows.slice(0, search.limit);
  const last = page.at(-1);
  return {
    total: total?.n ?? 0,
    items: page.map(({ row }) => ({
      conversationId: row.conversationId,
      status: row.status,
      intent: row.intentCode,
      state: row.stateCode,
      turnCount: row.turnCount,
      lastUserText: row.lastUserText,
      configVersion: row.configVersion,
      updatedAt: row.updatedAt.toISOString(),
    })),
    next:
      rows.length > search.limit && last
        ? { updatedAtMicros: last.updatedAtMicros, conversationId: last.row.conversationId }
        : null,
  };
}

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
