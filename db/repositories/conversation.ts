import type { ConversationsAt } from '../../core/config/stranded';
import type { Json, JsonObject } from '../../core/json';
import type { HistoryTurn } from '../../core/session';
import type { Database } from '../pool';
import { RECENT_HISTORY_SQL, recentHistory, toHistoryTurn, type HistoryRow } from './history';
import { jsonbParam, runStatement, type Statement } from '../statements';
import { refusingRetired } from './retired';

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

/** The columns a ConversationRecord is read from, in the order of the statements below. */
const RECORD_COLUMNS = `conversation_id, status, intent_code, state_code, context_json, last_user_text,
  last_assistant_json, input_params_json, turn_count, config_version`;

interface ConversationRow {
  conversation_id: string;
  status: string;
  intent_code: string;
  state_code: string;
  context_json: Json | null;
  last_user_text: string | null;
  last_assistant_json: Json | null;
  input_params_json: Json | null;
  turn_count: number;
  config_version: string | null;
}

function toRecord(row: ConversationRow): ConversationRecord {
  return {
    conversationId: row.conversation_id,
    status: row.status,
    intentCode: row.intent_code,
    stateCode: row.state_code,
    context: (row.context_json ?? {}) as JsonObject,
    lastUserText: row.last_user_text,
    lastAssistantJson: row.last_assistant_json ?? null,
    inputParams: (row.input_params_json ?? {}) as JsonObject,
    turnCount: row.turn_count,
    configVersion: row.config_version,
  };
}

const ENSURE: Statement = {
  name: 'ce_conversation_ensure_v1',
  resendable: true,
  text: 'INSERT INTO ce_conversation (conversation_id) VALUES ($1) ON CONFLICT (conversation_id) DO NOTHING',
};

/**
 * Creates the row of a new conversation; a no-op when it exists (concurrent creators agree). A retired id's is refused
 * (CONVERSATION_RETIRED), as by every creation.
 */
export async function ensureConversation(db: Database, conversationId: string): Promise<void> {
  await refusingRetired(conversationId, () => runStatement(db, ENSURE, [conversationId]));
}

const FIND: Statement = {
  name: 'ce_conversation_find_v1',
  resendable: true,
  text: `SELECT ${RECORD_COLUMNS} FROM ce_conversation WHERE conversation_id = $1`,
};

export async function findConversation(db: Database, conversationId: string): Promise<ConversationRecord | null> {
  const [row] = await runStatement<ConversationRow>(db, FIND, [conversationId]);
  return row ? toRecord(row) : null;
}

/**
 * ensureConversation, findConversation and recentHistory in one round trip: the new row as
 * inserted or the existing one (the statement's snapshot holds exactly one of the two), with its
 * `$2` most recent history rows, newest first.
 */
const LOAD: Statement = {
  name: 'ce_conversation_load_v1',
  resendable: true,
  text: `WITH created AS (
    INSERT INTO ce_conversation (conversation_id) VALUES ($1) ON CONFLICT (conversation_id) DO NOTHING
    RETURNING ${RECORD_COLUMNS}
  ), found AS (
    SELECT ${RECORD_COLUMNS} FROM created
    UNION ALL
    SELECT ${RECORD_COLUMNS} FROM ce_conversation WHERE conversation_id = $1
  )
  SELECT found.*,
         (SELECT coalesce(jsonb_agg(to_jsonb(recent) ORDER BY recent.turn_number DESC), '[]'::jsonb)
            FROM (${RECENT_HISTORY_SQL}) recent) AS recent_history
    FROM found`,
};

export interface LoadedConversation {
  conversation: ConversationRecord;
  /** The most recent committed turns, newest first. */
  history: HistoryTurn[];
}

/**
 * Creates the conversation when it is new and reads it with its recent history. When a concurrent
 * creator committed the row after this statement's snapshot was taken, neither half sees it; the
 * separate reads that follow then do, as they would have. A retired id (pruned or erased) is not created again:
 * CONVERSATION_RETIRED, even when its erase commits while this statement runs (migration 0027).
 */
export async function loadConversation(
  db: Database,
  conversationId: string,
  historyTurns: number
): Promise<LoadedConversation | null> {
  const [row] = await refusingRetired(conversationId, () =>
    runStatement<ConversationRow & { recent_history: HistoryRow[] }>(db, LOAD, [conversationId, historyTurns])
  );
  if (row) return { conversation: toRecord(row), history: row.recent_history.map(toHistoryTurn) };
  const conversation = await findConversation(db, conversationId);
  return conversation && { conversation, history: await recentHistory(db, conversationId, historyTurns) };
}

const TURN_COUNT: Statement = {
  name: 'ce_conversation_turn_count_v1',
  resendable: true,
  text: 'SELECT turn_count FROM ce_conversation WHERE conversation_id = $1',
};

/** Committed turns of a conversation (0 when it does not exist yet). */
export async function committedTurnCount(db: Database, conversationId: string): Promise<number> {
  const [row] = await runStatement<{ turn_count: number }>(db, TURN_COUNT, [conversationId]);
  return row?.turn_count ?? 0;
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
 * The conversation row moves from turn n-1 ($14) to n ($2) and, only when it moved, the history
 * row of turn n is added: one statement, so one atomic round trip instead of a transaction's four.
 */
const COMMIT: Statement = {
  name: 'ce_conversation_commit_v1',
  // A resent commit that had applied moves nothing and commitTurn finds its history row.
  resendable: true,
  text: `WITH moved AS (
    UPDATE ce_conversation
       SET status = $3, intent_code = $4, state_code = $5, context_json = $6::jsonb, last_user_text = $7,
           last_assistant_json = $8::jsonb, input_params_json = $9::jsonb, config_version = $10,
           turn_count = $2, updated_at = now()
     WHERE conversation_id = $1 AND turn_count = $11
    RETURNING conversation_id
  ), added AS (
    INSERT INTO ce_conversation_history (conversation_id, turn_number, user_input, assistant_output)
    SELECT conversation_id, $2, $12, $13::jsonb FROM moved
  )
  SELECT count(*)::int AS moved FROM moved`,
};

/**
 * Commits one turn atomically: the conversation row moves from turn n-1 to n (optimistic on
 * turn_count) and the history row of turn n is added. A rerun of a turn that already committed the
 * very same content (a retried commit, a reset before it whose reply did not change) changes
 * nothing; anything else is STALE: another turn n, or this turn rerun to a different end (a reset
 * whose new run decided otherwise), which must not leave the stored turn contradicting it.
 */
export async function commitTurn(db: Database, commit: TurnCommit): Promise<CommitOutcome> {
  const [result] = await runStatement<{ moved: number }>(db, COMMIT, [
    commit.conversationId,
    commit.turnNumber,
    commit.status,
    commit.intentCode,
    commit.stateCode,
    jsonbParam(commit.context),
    commit.lastUserText,
    jsonbParam(commit.lastAssistantJson),
    jsonbParam(commit.inputParams),
    commit.configVersion,
    commit.turnNumber - 1,
    commit.historyUserInput,
    jsonbParam(commit.historyAssistantOutput),
  ]);
  return result && result.moved > 0 ? 'COMMITTED' : alreadyCommitted(db, commit);
}

/**
 * Whether turn $2 committed exactly this: its history row, and the conversation row while it still stands at that
 * turn (a later turn has since overwritten it, and then the history row is all that is left of turn $2).
 */
const SAME_COMMIT: Statement = {
  name: 'ce_conversation_same_commit_v1',
  resendable: true,
  text: `SELECT h.user_input IS NOT DISTINCT FROM $3 AND h.assistant_output IS NOT DISTINCT FROM $4::jsonb
            AND (c.turn_count <> $2 OR (c.status, c.intent_code, c.state_code, c.last_user_text, c.config_version)
                   IS NOT DISTINCT FROM ($5, $6, $7, $8, $9)
                 AND c.context_json IS NOT DISTINCT FROM $10::jsonb
                 AND c.last_assistant_json IS NOT DISTINCT FROM $11::jsonb
                 AND c.input_params_json IS NOT DISTINCT FROM $12::jsonb) AS same
       FROM ce_conversation_history h JOIN ce_conversation c USING (conversation_id)
      WHERE h.conversation_id = $1 AND h.turn_number = $2`,
};

/** Read in its own statement, after the commit's: it must see a concurrent commit of this turn. */
async function alreadyCommitted(db: Database, commit: TurnCommit): Promise<CommitOutcome> {
  const [row] = await runStatement<{ same: boolean }>(db, SAME_COMMIT, [
    commit.conversationId,
    commit.turnNumber,
    commit.historyUserInput,
    jsonbParam(commit.historyAssistantOutput),
    commit.status,
    commit.intentCode,
    commit.stateCode,
    commit.lastUserText,
    commit.configVersion,
    jsonbParam(commit.context),
    jsonbParam(commit.lastAssistantJson),
    jsonbParam(commit.inputParams),
  ]);
  return row?.same === true ? 'ALREADY_COMMITTED' : 'STALE';
}

const CONVERSATIONS_AT: Statement = {
  name: 'ce_conversation_states_v1',
  resendable: true,
  text: `SELECT intent_code, state_code, count(*)::int AS conversations FROM ce_conversation
          GROUP BY intent_code, state_code ORDER BY count(*) DESC, intent_code, state_code`,
};

/** How many conversations rest in each (intent, state): what a config change is checked against. */
export async function conversationsByState(db: Database): Promise<ConversationsAt[]> {
  const rows = await runStatement<{ intent_code: string; state_code: string; conversations: number }>(
    db,
    CONVERSATIONS_AT,
    []
  );
  return rows.map((r) => ({ intent: r.intent_code, state: r.state_code, conversations: r.conversations }));
}
