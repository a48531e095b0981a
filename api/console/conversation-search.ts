import { and, count, desc, DrizzleQueryError, eq, inArray, notInArray, sql, type SQL } from 'drizzle-orm';
import { normalizeScopeValue } from '../../core/config/scope';
import { sqlStateOf } from '../../db/error-text';
import type { Database } from '../../db/pool';
import { ceConversation } from '../../db/schema';
import { ApiError } from '../errors';
import { holdsText, matchingRows } from './conversation-text';
import {
  PARKED_STATUSES,
  SEARCH_COUNT_CAP,
  type ConversationCursor,
  type ConversationPage,
  type ConversationSearch,
  type ParkedStatus,
} from './ports';

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

function searchFilter(search: ConversationSearch, codes: readonly SQL[]): SQL | undefined {
  const filters: SQL[] = [...codes];
  const status = search.status && statusFilter(search.status, search.parked);
  if (status) filters.push(status);
  return filters.length > 0 ? and(...filters) : undefined;
}

/** updated_at to the microsecond since the epoch (extract is exact numeric on PostgreSQL 14 and later). */
const UPDATED_AT_MICROS = sql<string>`floor(extract(epoch from ${ceConversation.updatedAt}) * 1000000)::bigint::text`;

/** The rows after a cursor in the list's order: (updated_at, id) descending, so an equal updated_at goes by id. */
function afterCursor(cursor: ConversationCursor, than = sql`<`): SQL {
  return sql`(${ceConversation.updatedAt}, ${ceConversation.conversationId}) ${than}
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

/** The conversations of the page: of `among` (the filters, and the ones a text search found), after the cursor. */
function pageRows(tx: Transaction, search: ConversationSearch, among: SQL | undefined) {
  return tx
    .select({ row: ceConversation, updatedAtMicros: UPDATED_AT_MICROS })
    .from(ceConversation)
    .where(and(among, search.after && afterCursor(search.after)))
    .orderBy(desc(ceConversation.updatedAt), desc(ceConversation.conversationId))
    .limit(search.limit + 1);
}

/** The conversations `where` keeps, counted up to one past SEARCH_COUNT_CAP: a count that stops there reads no further. */
async function countUpToCap({ tx, bound }: SearchTx, where: SQL | undefined): Promise<number> {
  await bound();
  const capped = tx
    .select({ one: sql`1` })
    .from(ceConversation)
    .where(where)
    .limit(SEARCH_COUNT_CAP + 1);
  const [counted] = await tx.select({ n: count() }).from(capped.as('capped'));
  return counted?.n ?? 0;
}

/**
 * How many rows holding the text a search reads through the trigram indexes before it takes the other way (walking
 * the list): as many as it counts conversations, so that any text it can count to the end is found this way; and how
 * many it reads when the walk found the text too rare among conversations (MORE_ROWS_CAP).
 */
const INDEXED_ROWS_CAP = SEARCH_COUNT_CAP;
const MORE_ROWS_CAP = 10 * SEARCH_COUNT_CAP;

/**
 * How many conversations a walk checks before it asks the indexes again: a text many rows hold but few conversations
 * (a word a long conversation repeats) would have it check them all (0.3-0.6 ms each, 15-30 s at 50,000 conversations).
 */
const WALK_WINDOW = SEARCH_COUNT_CAP;

/** The rows (at most `cap` + 1) that hold `q`, and their conversations. */
async function rowsHolding({ tx, bound }: SearchTx, q: string, cap: number): Promise<{ rows: number; ids: string[] }> {
  await bound();
  const { rows } = await tx.execute<{ rows: number; ids: string[] }>(
    sql`SELECT count(*)::int AS rows, coalesce(array_agg(DISTINCT p.id::text), '{}') AS ids
      FROM (${matchingRows(q, cap + 1)}) p`
  );
  return rows[0] ?? { rows: 0, ids: [] };
}

/** The last conversation of the walk's window (WALK_WINDOW after the cursor); none when fewer are left. */
async function windowEnd({ tx, bound }: SearchTx, search: ConversationSearch, filters: SQL | undefined) {
  await bound();
  const [end] = await tx
    .select({ updatedAtMicros: UPDATED_AT_MICROS, conversationId: ceConversation.conversationId })
    .from(ceConversation)
    .where(and(filters, search.after && afterCursor(search.after)))
    .orderBy(desc(ceConversation.updatedAt), desc(ceConversation.conversationId))
    .offset(WALK_WINDOW - 1)
    .limit(1);
  return end;
}

/** The page of the conversations `ids` holds, counted: exact when `ids` are all that hold the text. */
async function pageOfFound(within: SearchTx, search: ConversationSearch, filters: SQL | undefined, ids: string[]) {
  const found = ids.length > 0 ? inArray(ceConversation.conversationId, ids) : sql`false`;
  const matched = await countUpToCap(within, and(filters, found));
  await within.bound();
  return { rows: await pageRows(within.tx, search, and(filters, found)), matched };
}

/**
 * A text search's page, and how many match. It first reads the rows that hold the text through the trigram indexes,
 * up to INDEXED_ROWS_CAP: a text that few rows hold (an order number, a name, a conversation id) is found whole so,
 * its page and count exact, in milliseconds. A text more rows hold (one every reply says, a word of two letters)
 * would be read whole that way, every match before the first page (15 s at 50,000 conversations for one every
 * conversation holds): its page walks the list instead, newest first through ce_conversation_updated_idx, checking
 * each conversation (holdsText) until it has the page, and its count is the conversations among the rows read first,
 * a lower bound (`atLeast`). A walk that checked WALK_WINDOW conversations without its page has found a text more
 * rows hold than conversations: the indexes again, up to MORE_ROWS_CAP rows, and a walk to the end past those.
 */
async function textPageAndCount(within: SearchTx, search: ConversationSearch, q: string, filters: SQL | undefined) {
  const first = await rowsHolding(within, q, INDEXED_ROWS_CAP);
  if (first.rows <= INDEXED_ROWS_CAP)
    return { ...(await pageOfFound(within, search, filters, first.ids)), atLeast: false };
  const walk = async (end?: ConversationCursor) => {
    await within.bound();
    return pageRows(within.tx, search, and(filters, holdsText(q), end && afterCursor(end, sql`>=`)));
  };
  const end = await windowEnd(within, search, filters);
  let rows = await walk(end);
  if (end && rows.length <= search.limit) {
    const more = await rowsHolding(within, q, MORE_ROWS_CAP);
    if (more.rows <= MORE_ROWS_CAP)
      return { ...(await pageOfFound(within, search, filters, more.ids)), atLeast: false };
    rows = await walk();
  }
  const found = inArray(ceConversation.conversationId, first.ids);
  return { rows, matched: Math.max(await countUpToCap(within, and(filters, found)), rows.length), atLeast: true };
}

/** The page's rows and how many match (`atLeast`: no fewer). Without a text, the filters are columns of the row. */
async function pageAndCount(within: SearchTx, search: ConversationSearch, filters: SQL | undefined) {
  const q = search.q?.trim();
  if (q) return textPageAndCount(within, search, q, filters);
  await within.bound();
  const rows = await pageRows(within.tx, search, filters);
  return { rows, matched: await countUpToCap(within, filters), atLeast: false };
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
  const { rows, matched, atLeast } = await withSearchDeadline(db, timeoutMs, async (within) =>
    pageAndCount(within, search, searchFilter(search, await codeFilters(within, search)))
  );
  const page = rows.slice(0, search.limit);
  const last = page.at(-1);
  return {
    total: Math.min(matched, SEARCH_COUNT_CAP),
    ...((atLeast || matched > SEARCH_COUNT_CAP) && { totalCapped: true as const }),
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
