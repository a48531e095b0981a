import { sql, type SQL } from 'drizzle-orm';
import { ceAudit, ceConversation, ceConversationHistory } from '../../db/schema';
import { textMatches } from '../../db/search-collation';

/** A reply's scalars: strings and numbers, never the keys or punctuation of the JSON they sit in. */
const SCALARS = '? (@.type() == "string" || @.type() == "number")';

/**
 * The text a reply shows, as the commit stores it (activities/pipeline/persist-conversation.ts): a TEXT reply is
 * `{type: "TEXT", value}` and is searched under `value`; a JSON reply is the model's or the response's JSON as it is,
 * searched in all its values; a bare string as it is. Not the stored JSON's keys, quotes and escapes.
 */
function replyTextMatches(query: string): SQL {
  return sql`(CASE WHEN jsonb_typeof(h.assistant_output) = 'string' THEN ${textMatches(sql`h.assistant_output #>> '{}'`, query)}
    ELSE EXISTS (SELECT 1 FROM jsonb_path_query(h.assistant_output,
      CASE WHEN h.assistant_output @> '{"type": "TEXT"}' AND h.assistant_output ? 'value'
        THEN ${`lax $.value.** ${SCALARS}`} ELSE ${`lax $.** ${SCALARS}`} END::jsonpath) AS said(v)
    WHERE ${textMatches(sql`said.v #>> '{}'`, query)}) END)`;
}

/**
 * Where text is, one predicate each, shared by both ways of searching (matchingRows, holdsText) so that they find the
 * same conversations: the conversation row (its id, what the user said last), a history row `h` (what the user said,
 * what the reply showed: found by its text in one value, then checked scalar by scalar) and a run's USER_INPUT audit
 * row `a` (a turn that failed commits nothing, so its message is only there, also once a later message took its turn
 * number). The stage is written in the statement, not bound, so that a generic plan can use the partial index too.
 */
const rowMatches = (id: SQL, lastUserText: SQL, query: string) =>
  sql`(${textMatches(sql`${id}::text`, query)} OR ${textMatches(lastUserText, query)})`;
const historyMatches = (query: string) =>
  sql`(${textMatches(sql`h.user_input`, query)}
    OR (${textMatches(sql`ce_reply_search_text(h.assistant_output)`, query)} AND ${replyTextMatches(query)}))`;
const auditMatches = (query: string) =>
  sql`a.stage = 'USER_INPUT' AND ${textMatches(sql`a.payload_json ->> 'text'`, query)}`;

/**
 * The rows that hold `query`, at most `cap` of them, one conversation id per row (a conversation repeats, once per
 * row): from each place text is, each read through its trigram index where the database has them
 * (db/search-indexes.ts). UNION ALL, not UNION, so that the LIMIT stops the reading: UNION's de-duplication reads
 * every match before it returns one. As EXISTS per conversation joined by OR the whole tables were read (hashed
 * subplans) for a text found nowhere.
 */
export function matchingRows(query: string, cap: number): SQL {
  return sql`SELECT m.id FROM (
    SELECT c.conversation_id AS id FROM ${ceConversation} c
      WHERE ${rowMatches(sql`c.conversation_id`, sql`c.last_user_text`, query)}
    UNION ALL SELECT h.conversation_id FROM ${ceConversationHistory} h WHERE ${historyMatches(query)}
    UNION ALL SELECT a.conversation_id FROM ${ceAudit} a WHERE ${auditMatches(query)}) m LIMIT ${cap}`;
}

/**
 * The ce_conversation row the statement reads holds `query`: checked for that one conversation, its history through
 * (conversation_id, turn_number) and its USER_INPUT audit rows through ce_audit_user_input_idx. For a walk of the list
 * in its order that stops at a page: it checks as many conversations as it takes to find the page, never every match.
 * OFFSET 0 keeps each EXISTS a check per row: without it PostgreSQL may read the whole table once into a hash (a hashed
 * subplan), every match again.
 */
export function holdsText(query: string): SQL {
  return sql`(${rowMatches(sql`${ceConversation.conversationId}`, sql`${ceConversation.lastUserText}`, query)}
    OR EXISTS (SELECT 1 FROM ${ceConversationHistory} h
      WHERE h.conversation_id = ${ceConversation.conversationId} AND ${historyMatches(query)} OFFSET 0)
    OR EXISTS (SELECT 1 FROM ${ceAudit} a
      WHERE a.conversation_id = ${ceConversation.conversationId} AND ${auditMatches(query)} OFFSET 0))`;
}
