import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';
import { TurnOutcome } from '../core/turn/contracts';
import { TurnStatus } from './turn-status';

/**
 * Typed search attributes of a turn. Only codes and numbers — never user text or ids of people
 * (PII must not reach the visibility store).
 */
export const TurnSearchAttribute = {
  ConversationId: 'ConversationId',
  TurnNumber: 'TurnNumber',
  Intent: 'Intent',
  State: 'State',
  TurnOutcome: 'TurnOutcome',
  ConfigVersion: 'ConfigVersion',
} as const;
export type TurnSearchAttribute = (typeof TurnSearchAttribute)[keyof typeof TurnSearchAttribute];

const A = TurnSearchAttribute;
export const ConversationIdKey = defineSearchAttributeKey(A.ConversationId, SearchAttributeType.KEYWORD);
export const TurnNumberKey = defineSearchAttributeKey(A.TurnNumber, SearchAttributeType.INT);
export const IntentKey = defineSearchAttributeKey(A.Intent, SearchAttributeType.KEYWORD);
export const StateKey = defineSearchAttributeKey(A.State, SearchAttributeType.KEYWORD);
export const TurnOutcomeKey = defineSearchAttributeKey(A.TurnOutcome, SearchAttributeType.KEYWORD);
export const ConfigVersionKey = defineSearchAttributeKey(A.ConfigVersion, SearchAttributeType.KEYWORD);

/** Name → type, for registering them on a namespace (dev server start-up, compose bootstrap). */
export const TURN_SEARCH_ATTRIBUTES = {
  [A.ConversationId]: 'Keyword',
  [A.TurnNumber]: 'Int',
  [A.Intent]: 'Keyword',
  [A.State]: 'Keyword',
  [A.TurnOutcome]: 'Keyword',
  [A.ConfigVersion]: 'Keyword',
} as const satisfies Record<TurnSearchAttribute, 'Keyword' | 'Int'>;

/** Where a turn stood, as the search attributes a query filters on: its intent, state and pinned config version. */
export interface TurnPosition {
  intent: string;
  state: string;
  configVersion: string;
}

/** A cancelled turn's TurnOutcome is recorded: CANCELLED, with where it stood (positionAttributes). */
export interface CancelledTurn {
  position: TurnPosition | null;
}

/** Intent, State and ConfigVersion of a turn; none before a step pinned the config (a turn failed at its start). */
export function positionAttributes(at: TurnPosition | null): SearchAttributeUpdatePair[] {
  if (!at || at.configVersion === '') return [];
  return [
    { key: IntentKey, value: at.intent },
    { key: StateKey, value: at.state },
    { key: ConfigVersionKey, value: at.configVersion },
  ];
}

/**
 * What TurnOutcome holds: a finished turn's outcome (FAILED when it failed, CANCELLED when it was cancelled); while it
 * waits on a person, AWAITING_APPROVAL or HELD; RUNNING again once the wait is over.
 */
export const TurnOutcomeValue = {
  ...TurnOutcome,
  Running: TurnStatus.Running,
  Held: TurnStatus.Held,
  // Cancelled in Temporal (`temporal workflow cancel`): no outcome of a result, as such a turn has none.
  Cancelled: 'CANCELLED',
} as const;
export type TurnOutcomeValue = (typeof TurnOutcomeValue)[keyof typeof TurnOutcomeValue];

const OUTCOME_VALUES: ReadonlySet<string> = new Set(Object.values(TurnOutcomeValue));

/** A turn's search attributes as read back; an attribute that is absent or not of its type is left out. */
export interface TurnSearchAttributeValues {
  conversationId?: string;
  turnNumber?: number;
  intent?: string;
  state?: string;
  turnOutcome?: TurnOutcomeValue;
  configVersion?: string;
}

/** A describe/list result gives each attribute as an array of values, a history upsert as the value. */
function single(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

function keyword(raw: Readonly<Record<string, unknown>>, name: TurnSearchAttribute): string | undefined {
  const value = single(raw[name]);
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads a turn's search attributes from a describe or list result (`searchAttributes`) or from the
 * upserts of its history (api/history): the one place that knows their names and value types.
 */
export function readTurnSearchAttributes(raw: Readonly<Record<string, unknown>>): TurnSearchAttributeValues {
  const out: TurnSearchAttributeValues = {};
  const conversationId = keyword(raw, A.ConversationId);
  if (conversationId !== undefined) out.conversationId = conversationId;
  const turnNumber = single(raw[A.TurnNumber]);
  if (typeof turnNumber === 'number' && Number.isInteger(turnNumber)) out.turnNumber = turnNumber;
  const intent = keyword(raw, A.Intent);
  if (intent !== undefined) out.intent = intent;
  const state = keyword(raw, A.State);
  if (state !== undefined) out.state = state;
  const outcome = keyword(raw, A.TurnOutcome);
  if (outcome !== undefined && OUTCOME_VALUES.has(outcome)) out.turnOutcome = outcome as TurnOutcomeValue;
  const configVersion = keyword(raw, A.ConfigVersion);
  if (configVersion !== undefined) out.configVersion = configVersion;
  return out;
}

/** A visibility-query string literal: single-quoted, its quotes and backslashes escaped. */
function literal(value: string): string {
  return `'${value.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/**
 * Running turns of one task queue whose TurnOutcome is `outcome`:
 * `TurnOutcome = 'HELD' AND ExecutionStatus = 'Running' AND TaskQueue = 'convengine-turns'`; with more outcomes, any
 * of them: `TurnOutcome IN ('AWAITING_APPROVAL', 'HELD') AND …`. The task queue is the deployment's
 * (TEMPORAL_TASK_QUEUE): a namespace may hold other deployments' turns, which are not its operators' to list.
 */
export function runningTurnsQuery(taskQueue: string, outcome: TurnOutcomeValue, ...more: TurnOutcomeValue[]): string {
  const match = more.length === 0 ? `= ${literal(outcome)}` : `IN (${[outcome, ...more].map(literal).join(', ')})`;
  return `${A.TurnOutcome} ${match} AND ExecutionStatus = 'Running' AND TaskQueue = ${literal(taskQueue)}`;
}

/**
 * The turns of one conversation; with `numbers`, those whose turn number is after `after` and (when given) at most
 * `through`, so a page of turns is read from visibility, not every turn of the conversation.
 */
export function conversationTurnsQuery(conversationId: string, numbers?: { after: number; through?: number }): string {
  const conversation = `${A.ConversationId} = ${literal(conversationId)}`;
  if (!numbers) return conversation;
  // Written into the query: only integers, never text that could widen it.
  if (![numbers.after, numbers.through ?? 0].every(Number.isSafeInteger)) throw new Error('turn numbers are integers');
  const upTo = numbers.through === undefined ? '' : ` AND ${A.TurnNumber} <= ${numbers.through}`;
  return `${conversation} AND ${A.TurnNumber} > ${numbers.after}${upTo}`;
}

/** A query narrowed to one deployment's task queue (TEMPORAL_TASK_QUEUE): a namespace may hold other deployments'. */
export function onTaskQueue(query: string, taskQueue: string): string {
  return `${query} AND TaskQueue = ${literal(taskQueue)}`;
}
