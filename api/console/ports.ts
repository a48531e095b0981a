import type { temporal } from '@temporalio/proto';
import { CONVERSATION_STATUSES } from '../../core/session';
import type { JsonObject } from '../../core/json';
import type { HeldTool, PendingApproval } from '../../workflows/messages';
import { TurnOutcomeValue } from '../../workflows/search-attributes';
import type { AuditRowView } from '../ports';
import type { RunInput } from './turn-runs';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * Where a page of the conversation list starts: after this conversation, in the list's order (last activity,
 * then id, both descending). `updatedAtMicros` is its updated_at to the microsecond, as PostgreSQL holds it: a
 * millisecond would put the next page's start before rows of the same millisecond, or after them.
 */
export interface ConversationCursor {
  updatedAtMicros: string;
  conversationId: string;
}

/**
 * The statuses of a conversation whose turn is parked on a person, its row still saying RUNNING (or BLOCKED) until
 * the turn ends: AWAITING_APPROVAL on a tool approval (D16), HELD on an operator for a tool call whose retries ran
 * out (#22). Each is the parked turn's TurnOutcome.
 */
export const PARKED_STATUSES = [TurnOutcomeValue.AwaitingApproval, TurnOutcomeValue.Held] as const;
export type ParkedStatus = (typeof PARKED_STATUSES)[number];

/** The statuses the console lists a conversation with: ce_conversation.status's, and the parked ones. */
export const CONSOLE_CONVERSATION_STATUSES = [...CONVERSATION_STATUSES, ...PARKED_STATUSES] as const;

/** Filters of the console's conversation list; every one optional, the page bounded. */
export interface ConversationSearch {
  /** A conversation id (or its prefix), or text the user or the assistant wrote. */
  q?: string;
  /** One of CONSOLE_CONVERSATION_STATUSES. */
  status?: string;
  /**
   * The conversations with a turn parked now (Temporal's visibility), each with its parked status: listed, and
   * filtered, by it whatever their row's status; none when not given.
   */
  parked?: ReadonlyMap<string, ParkedStatus>;
  intent?: string;
  state?: string;
  limit: number;
  /** The previous page's `next`; none for the first page. */
  after?: ConversationCursor;
}

export interface ConversationSummary {
  conversationId: string;
  status: string;
  intent: string;
  state: string;
  turnCount: number;
  lastUserText: string | null;
  configVersion: string | null;
  updatedAt: string;
}

/**
 * How many matches the list counts: a search that matches more says "at least" this many (`totalCapped`), so that
 * counting a broad one does not read every match on every page. A text search reads as many rows holding its text
 * through the indexes; a text more rows hold is counted among those only (api/console/conversation-search.ts).
 */
export const SEARCH_COUNT_CAP = 1000;

export interface ConversationPage {
  items: ConversationSummary[];
  /** Conversations that match, on every page; counted up to SEARCH_COUNT_CAP; with `totalCapped`, at least this many. */
  total: number;
  /** `total` is a lower bound: more conversations match than the cap, or than a broad text search counted. */
  totalCapped?: true;
  /** Where the next page starts; null when this one is the last. */
  next: ConversationCursor | null;
  /**
   * Temporal's visibility could not be read, so which conversations are parked (AWAITING_APPROVAL or HELD) is not
   * known: each shows its stored status.
   */
  parkedUnknown?: true;
}

/** One run of a turn workflow, from Temporal's visibility. */
export interface TurnRunSummary {
  runId: string;
  status: string;
  /** Its TurnOutcome search attribute; null when it has none (yet) or one this release does not know. */
  outcome: TurnOutcomeValue | null;
  startedAt: string;
  closedAt: string | null;
}

/**
 * One turn workflow of a conversation, from Temporal's visibility (running and failed turns too): its latest run, and
 * the runs before it under the same id (a failed run an operator retried, or whose number a new message took).
 */
export interface TurnSummary extends TurnRunSummary {
  workflowId: string;
  turnNumber: number;
  /** Oldest first. */
  earlierRuns: TurnRunSummary[];
}

/** A page of a conversation's turns: the turn numbers after `after`, at most `limit` of them. */
export interface TurnPageRequest {
  after: number;
  limit: number;
}

export interface TurnPage {
  /** In turn order; fewer than `limit` where Temporal no longer holds a turn (past its retention) or none is left. */
  turns: TurnSummary[];
  /** The next page's `after` (this page's last turn number); null when no turn follows. */
  next: number | null;
}

/** An activity of a running turn that is retrying (or paused), from DescribeWorkflowExecution. */
export interface PendingActivityView {
  activityId: string;
  type: string;
  state: string;
  attempt: number;
  maximumAttempts: number;
  paused: boolean;
  lastFailure: string | null;
  nextAttemptAt: string | null;
}

export type ActivityOperation = 'reset' | 'pause' | 'unpause';

/**
 * A turn's latest run, as the workflow names it: the run the turn is (or ended as), also before that run wrote any
 * audit row, and its events.
 */
export interface TurnHistory {
  runId: string;
  events: HistoryEvent[];
  /** What the user said, as the run was started with it (its workflow input); null when that cannot be read. */
  startedWith: string | null;
}

/** A run of a turn, by its workflow and run id. */
export interface TurnRunId {
  workflowId: string;
  runId: string;
}

/** What the console reads from Temporal, and the activity operations it drives. */
export interface TurnInspector {
  /** One page of the conversation's turns, read from visibility by turn number: never every turn of it. */
  turns(conversationId: string, page: TurnPageRequest): Promise<TurnPage>;
  /** The turn's latest run and its events, or null when there is no such workflow. */
  history(workflowId: string): Promise<TurnHistory | null>;
  /**
   * What the user said in each of `runs`, from its start event (one event each, a few at once), by run id: a run's
   * message before its USER_INPUT row is written. A run whose start cannot be read is left out.
   */
  startMessages(runs: readonly TurnRunId[]): Promise<Map<string, string>>;
  pendingActivities(workflowId: string): Promise<PendingActivityView[]>;
  pendingApproval(workflowId: string): Promise<PendingApproval | null>;
  /** #22: the tool call the turn holds for an operator, or null (also for a turn that has ended). */
  heldTool(workflowId: string): Promise<HeldTool | null>;
  /** Temporal's own Pause/Unpause/ResetActivity; a server without them answers 501 ACTIVITY_OPERATION_UNSUPPORTED. */
  operateActivity(workflowId: string, activityId: string, operation: ActivityOperation): Promise<void>;
}

/** One SRE action as written to ce_audit (stage OPERATOR_ACTION); rewritten with its result. */
export interface OperatorActionRecord {
  workflowId: string;
  conversationId: string;
  turnNumber: number;
  /** Unique per action: its row is written at the start and rewritten with the result under this key. */
  actionId: string;
  payload: JsonObject;
}

/** An audit row of one turn with the step call that wrote it (`05-DialogueAct`, `18-McpTool-plan-1`, …). */
export interface TurnAuditRow extends AuditRowView {
  callKey: string;
}

export interface ConsolePorts {
  searchConversations(search: ConversationSearch): Promise<ConversationPage>;
  /** The conversation's parked status (AWAITING_APPROVAL, HELD) by its id when a turn of it is parked; else empty. */
  parked(conversationId: string): Promise<ReadonlyMap<string, ParkedStatus>>;
  turnAudits(conversationId: string, turnNumber: number): Promise<TurnAuditRow[]>;
  /** What the user said in each run of each of these turns, from their USER_INPUT rows, oldest first, in one read. */
  userInputs(conversationId: string, turnNumbers: readonly number[]): Promise<Map<number, RunInput[]>>;
  /**
   * Runs another of the console's database reads (the API's own, e.g. a conversation's row) within the console's
   * read budget (api/console/read-budget.ts); the ports above run within it already.
   */
  read<T>(work: () => Promise<T>): Promise<T>;
  /** Whether the conversation was pruned or erased: its turns' histories are not shown (410 CONVERSATION_RETIRED). */
  retired(conversationId: string): Promise<boolean>;
  inspector: TurnInspector;
  recordAction(record: OperatorActionRecord): Promise<void>;
  /** The Temporal Web UI (TEMPORAL_UI_URL, or the UI of the server `convengine start` runs). */
  temporalUi: { url: string; namespace: string } | null;
}
