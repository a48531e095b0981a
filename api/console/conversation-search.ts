import { and, count, desc, DrizzleQueryError, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import { normalizeScopeValue } from '../../core/config/scope';
import { sqlStateOf } from '../../db/error-text';
import type { Database } from '../../db/pool';
import { ceAudit, ceConversation, ceConversationHistory } from '../../db/schema';
import { textMatches } from '../../db/search-collation';
import { ApiError } from '../errors';
import {
  PARKED_STATUSES,
  SEARCH_COUNT_CAP,
  type ConversationCursor,
  type ConversationPage,
  type ConversationSearch,
  type ParkedStatus,
} from './ports';

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

type CodeColumn = typeof ceConversation.intentCode | typeof ceConversation.stateCode;

/**
 * The spellings of `column` stored in ce_conversation that name `code`, as the engine compares codes: trimmed and
 * upper-cased by JavaScript (core/config/scope.ts normalizeScopeValue), so `faq` finds FAQ, `STRASSE_ZUSTAND` finds
 * straße_zustand (ß upper-cases to SS) and `review` finds REVIEW on any database. PostgreSQL's upper() follows the
 * database's locale (under tr-TR upper('review') is REVİEW, and libc's keeps ß), and even ICU's follows the server's
 * Unicode version, not Node's; so the stored spellings, few, are folded here, and rows are matched on them as stored.
 */
async function storedSpellings(within: SearchTx, column: CodeColumn, code: string): Promise<string[]> {
  const wanted = normalizeScopeValue(code);
  await within.bound();
  const rows = await within.tx.selectDistinct({ stored: column }).from(ceConversation);
  return rows.map(({ stored }) => stored).filter((stored) => normalizeScopeValue(stored) === wanted);
}

/** The intent and state filters: the rows whose code is one of the spellings that name the one asked for. */
async function codeFilters(within: SearchTx, search: ConversationSearch): Promise<SQL[]> {
  const filters: SQL[] = [];
  for (const [column, code] of [
    [ceConversation.intentCode, search.intent],
    [ceConversation.stateCode, search.state],
  ] as const) {
    if (!code) continue;
    const spellings = await storedSpellings(within, column, code);
    filters.push(spellings.length > 0 ? inArray(column, spellings) : sql`false`);
  }
  return filters;
}

/**
 * The conversations whose id or text holds `query`, from each place text is: the conversation row (its id, what the
 * user said last), its history (what the user said, what the reply showed) and its runs' USER_INPUT audit rows (a
 * turn that failed commits nothing, so its message is only there, also once a later message took its turn number).
 * One list of ids from each, each read through its trigram index where the database has them (db/search-indexes.ts),
 * joined by UNION: as EXISTS per conversation joined by OR, PostgreSQL read each table whole (hashed subplans), seconds
 * at a million audit rows. A reply is found by its text in one value, then checked scalar by scalar (replyTextMatches).
 * The stage is written in the statement, not bound, so that a generic plan can use the partial index too.
 */
function conversationsMatching(query: string): SQL {
  return sql`${ceConversation.conversationId} IN (
    SELECT c.conversation_id FROM ${ceConversation} c
      WHERE ${textMatches(sql`c.conversation_id::text`, query)} OR ${textMatches(sql`c.last_user_text`, query)}
    UNION SELECT h.conversation_id FROM ${ceConversationHistory} h
      WHERE ${textMatches(sql`h.user_input`, query)}
        OR (${textMatches(sql`ce_reply_search_text(h.assistant_output)`, query)} AND ${replyTextMatches(query)})
    UNION SELECT a.conversation_id FROM ${ceAudit} a
      WHERE a.stage = 'USER_INPUT' AND ${textMatches(sql`a.payload_json ->> 'text'`, query)})`;
}

function searchFilter(search: ConversationSearch, codes: readonly SQL[]): SQL | undefined {
  const filters: SQL[] = [...codes];
  const status = search.status && statusFilter(search.status, search.parked);
  if (status) filters.push(status);
  const q = search.q?.trim();
  if (q) filters.push(conversationsMatching(q));
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
 * How long one list may take, all its statements together (the intent and state spellings, the page, the count): a
 * search too broad for the indexes (a text of one or two letters, a database without pg_trgm) would otherwise hold one
 * of the console's read slots (read-budget.ts) for seconds, and every other console page waits for those.
 */
export const SEARCH_TIMEOUT_MS = 5_000;

/** PostgreSQL's query_canceled, which statement_timeout raises. */
const QUERY_CANCELED = '57014';

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/**
 * The search's statements are never JIT-compiled: ce_reply_search_text's default cost (100 a row) makes a broad
 * search's plan look large enough for PostgreSQL to compile it with inlining and optimization, which took 1.0 s of
 * the 2.6 s a search matching every conversation took at 20,000 conversations, and pays off only on scans far longer
 * than the search's time allows.
 */
const NO_JIT = sql`set_config('jit', 'off', true)`;

/** One search's transaction, and the deadline its statements share. */
interface SearchTx {
  tx: Transaction;
  /** Before each statement: its statement_timeout becomes what is left of the search's time (none left: tooSlow). */
  bound(): Promise<void>;
}

const tooSlow = (timeoutMs: number) =>
  new ApiError(
    503,
    'SEARCH_TOO_SLOW',
    `The search did not finish within ${timeoutMs / 1000} s. Narrow it: a longer text (q), or a status, intent or state filter.`
  );

/**
 * `work` in a read-only transaction whose statements together stop after `timeoutMs`: then SEARCH_TOO_SLOW (503). A
 * statement_timeout per statement alone let a search of three statements run three times as long.
 */
async function withSearchDeadline<T>(
  db: Database,
  timeoutMs: number,
  work: (search: SearchTx) => Promise<T>
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  try {
    return await db.transaction(
      async (tx) => {
        const bound = async () => {
          const left = Math.ceil(deadline - performance.now());
          if (left <= 0) throw tooSlow(timeoutMs);
          await tx.execute(sql`SELECT set_config('statement_timeout', ${String(left)}, true), ${NO_JIT}`);
        };
        return work({ tx, bound });
      },
      { accessMode: 'read only' }
    );
  } catch (err) {
    if (sqlStateOf(err instanceof DrizzleQueryError ? err.cause : err) !== QUERY_CANCELED) throw err;
    throw tooSlow(timeoutMs);
  }
}

/** The text search's matches, counted up to one past SEARCH_COUNT_CAP: a count that stops there reads no further. */
const cappedCount = (from: SQL) =>
  sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${from} LIMIT ${SEARCH_COUNT_CAP + 1}) m)`.mapWith(Number);

/** The conversations of the page: of `among` (the filter, or the ones a text search found), after the cursor. */
function pageRows(
  start: Pick<Transaction, 'select'>,
  search: ConversationSearch,
  among: SQL | undefined,
  count: SQL<number>
) {
  return start
    .select({ row: ceConversation, updatedAtMicros: UPDATED_AT_MICROS, matched: count })
    .from(ceConversation)
    .where(and(among, search.after && afterCursor(search.after)))
    .orderBy(desc(ceConversation.updatedAt), desc(ceConversation.conversationId))
    .limit(search.limit + 1);
}

/**
 * The page's rows and how many match. A text search finds its conversations once for both (a CTE named twice is
 * materialized), not once for the rows and again for the count: the rows carry the count, and a page without rows (a
 * cursor past the last) counts apart. Without a text, the filters (status, intent, state) are columns of the row,
 * cheap to count apart.
 */
async function pageAndCount({ tx, bound }: SearchTx, search: ConversationSearch, where: SQL | undefined) {
  const countAlone = async () => {
    await bound();
    const capped = tx
      .select({ one: sql`1` })
      .from(ceConversation)
      .where(where)
      .limit(SEARCH_COUNT_CAP + 1);
    const [counted] = await tx.select({ n: count() }).from(capped.as('capped'));
    return counted?.n ?? 0;
  };
  await bound();
  if (!search.q?.trim()) {
    const rows = await pageRows(tx, search, where, sql<number>`0`.mapWith(Number));
    return { rows, matched: await countAlone() };
  }
  const matching = tx.$with('matching').as(
    tx
      .select({ id: sql<string>`${ceConversation.conversationId}`.as('id') })
      .from(ceConversation)
      .where(where)
  );
  const ids = tx.select({ id: matching.id }).from(matching);
  const among = inArray(ceConversation.conversationId, ids);
  const rows = await pageRows(tx.with(matching), search, among, cappedCount(sql`matching`));
  return { rows, matched: rows[0]?.matched ?? (search.after ? await countAlone() : 0) };
}

/**
 * The console's conversation list: newest activity first, one page, by keyset. A conversation a turn moves to the
 * top while a caller pages never repeats a row nor pushes one off the next page (as an offset did); it is on the
 * first page again.
 */
export async function searchConversations(
  db: Database,
  search: ConversationSearch,
  timeoutMs = SEARCH_TIMEOUT_MS
): Promise<ConversationPage> {
  const { rows, matched } = await withSearchDeadline(db, timeoutMs, async (within) =>
    pageAndCount(within, search, searchFilter(search, await codeFilters(within, search)))
  );
  const page = rows.slice(0, search.limit);
  const last = page.at(-1);
  return {
    total: Math.min(matched, SEARCH_COUNT_CAP),
    ...(matched > SEARCH_COUNT_CAP && { totalCapped: true as const }),
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
