import { createHash } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { Client } from '@temporalio/client';
import { decodeMapFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import type { temporal } from '@temporalio/proto';
import {
  conversationTurnsQuery,
  readTurnSearchAttributes,
  runningTurnsQuery,
  TurnOutcomeValue,
} from '../../workflows/search-attributes';
import { badRequest } from '../errors';
import { decodedSearchAttributes } from '../history/entries';
import { decideWith } from '../replies';
import { PARKED_STATUSES, type ParkedStatus } from '../console/ports';
import { listedParkedReader } from './turn-worker';

/**
 * The task queue's turns parked on a tool approval (D16): the workflow sets this outcome while it waits, RUNNING again
 * once decided.
 */
export const awaitingApprovalQuery = (taskQueue: string): string =>
  runningTurnsQuery(taskQueue, TurnOutcomeValue.AwaitingApproval);

/** The call a turn waits on, as its memo says (or, for a turn parked before it did, its worker). */
export interface WaitingApproval {
  toolCode: string;
  callIndex: number;
  /** Null from a worker of a build before it kept the time. */
  requestedAt: string | null;
  expiresAt: string;
  /** The approval route, method and body for this call (as a 202's `approval.decideWith`); null without the turn's ids. */
  decideWith: ReturnType<typeof decideWith> | null;
}

export interface AwaitingApprovalTurn {
  workflowId: string;
  runId: string;
  /** From the turn's search attributes, known without a worker. */
  conversationId: string | null;
  turnNumber: number | null;
  intent: string | null;
  state: string | null;
  configVersion: string | null;
  /**
   * The call that waits, from the turn's memo; null when it could not be read (`unavailable`): a turn parked by a worker
   * before the memo said (PARKED_MEMO_PATCH) is asked its worker.
   */
  approval: WaitingApproval | null;
  /** Why `approval` is null: the turn's memo does not say, and no worker answers the turn's query. */
  unavailable?: string;
}

export interface ApprovalQueuePage {
  turns: AwaitingApprovalTurn[];
  /** The cursor of the next page (`after`), null on the last. */
  next: string | null;
}

/**
 * The turns waiting for an approval, the approvers' queue: the API's admin route, the console's panel and
 * `convengine sre approvals` list it from Temporal's visibility (TurnOutcome = AWAITING_APPROVAL, running), the
 * source `convengine_pending_approvals` counts, each with the call it waits on as its memo says: no worker is asked.
 */
export interface ApprovalQueue {
  /** One page of at most `limit` turns, newest first; `after` is the previous page's `next`. */
  list(page: { limit: number; after?: string }): Promise<ApprovalQueuePage>;
}

type RawExecution = temporal.api.workflow.v1.IWorkflowExecutionInfo;

/** A listed turn, before its waiting call is read. */
function visibleTurn(raw: RawExecution): Omit<AwaitingApprovalTurn, 'approval'> {
  const at = readTurnSearchAttributes(decodedSearchAttributes(raw.searchAttributes?.indexedFields));
  return {
    workflowId: raw.execution?.workflowId ?? '',
    runId: raw.execution?.runId ?? '',
    conversationId: at.conversationId ?? null,
    turnNumber: at.turnNumber ?? null,
    intent: at.intent ?? null,
    state: at.state ?? null,
    configVersion: at.configVersion ?? null,
  };
}

/** Bytes of a cursor's check: enough that a mistyped or cut cursor is refused, not sent to Temporal. */
const CHECK_BYTES = 8;

/** The check of a page token: its hash with this list's query, so a cursor of another list is refused too. */
const checkOf = (query: string, token: Uint8Array): Buffer =>
  createHash('sha256').update(query).update(token).digest().subarray(0, CHECK_BYTES);

/**
 * The cursor as the API writes it: Temporal's page token (opaque, the server's own format) after its check, base64url.
 * Real Temporal answers a token it cannot read with UNKNOWN "something went wrong" (and reads some it never wrote),
 * so the check, not the server, tells a cursor this list gave from anything else.
 */
const cursorOf = (query: string, token: Uint8Array | null | undefined): string | null =>
  token && token.length > 0 ? Buffer.concat([checkOf(query, token), token]).toString('base64url') : null;

export const invalidCursor = () =>
  badRequest('INVALID_CURSOR', "after must be the previous page's next, as this list gave it.", { field: 'after' });

/** The page token a cursor carries; 400 INVALID_CURSOR when its check does not hold. */
function tokenOf(query: string, cursor: string): Buffer {
  const bytes = Buffer.from(cursor, 'base64url');
  const token = bytes.subarray(CHECK_BYTES);
  if (token.length === 0 || !checkOf(query, token).equals(bytes.subarray(0, CHECK_BYTES))) throw invalidCursor();
  return token;
}

async function listPage(client: Client, query: string, limit: number, after: string | undefined) {
  const nextPageToken = after === undefined ? undefined : tokenOf(query, after);
  try {
    return await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize: limit,
      nextPageToken,
    });
  } catch (err) {
    // The server's own word that it cannot read the token (our dev server's answer to one it did not write).
    if (after !== undefined && (err as { code?: unknown }).code === GrpcStatus.INVALID_ARGUMENT) throw invalidCursor();
    throw err;
  }
}

/** The approval queue of the deployment whose turns run on `taskQueue` (TEMPORAL_TASK_QUEUE). */
export function temporalApprovalQueue(client: Client, taskQueue: string): ApprovalQueue {
  const query = awaitingApprovalQuery(taskQueue);
  return {
    async list({ limit, after }) {
      const page = await listPage(client, query, limit, after);
      const parkedOf = listedParkedReader(client);
      const turns: AwaitingApprovalTurn[] = [];
      for (const raw of page.executions ?? []) {
        const turn = visibleTurn(raw);
        const read = await parkedOf(turn.workflowId, await listedTurn(client, raw, turn));
        if (read && 'unavailable' in read) turns.push({ ...turn, approval: null, unavailable: read.unavailable });
        // A turn decided between the listing and the query no longer waits, and is left out.
        else if (read?.parked.pending) turns.push({ ...turn, approval: waiting(turn, read.parked.pending) });
      }
      return { turns, next: cursorOf(query, page.nextPageToken) };
    },
  };
}

/** A listed turn as the reader of what it waits on takes it: its memo decoded (it is encrypted too). */
async function listedTurn(client: Client, raw: RawExecution, turn: Omit<AwaitingApprovalTurn, 'approval'>) {
  const { turnOutcome } = readTurnSearchAttributes(decodedSearchAttributes(raw.searchAttributes?.indexedFields));
  return {
    runId: turn.runId,
    taskQueue: raw.taskQueue ?? '',
    type: raw.type?.name ?? '',
    memo: await decodeMapFromPayloads(client.options.loadedDataConverter, raw.memo?.fields),
    outcome: turnOutcome,
  };
}

function waiting(
  turn: Pick<AwaitingApprovalTurn, 'conversationId' | 'turnNumber'>,
  pending: { toolCode: string; callIndex: number; requestedAt?: string; expiresAt: string }
): WaitingApproval {
  const { toolCode, callIndex, expiresAt } = pending;
  const { conversationId, turnNumber } = turn;
  const route =
    conversationId !== null && turnNumber !== null ? decideWith(conversationId, turnNumber, callIndex) : null;
  return { toolCode, callIndex, requestedAt: pending.requestedAt ?? null, expiresAt, decideWith: route };
}

/** Visibility's page size for reading the parked conversations; Temporal's own maximum. */
const PARKED_PAGE_SIZE = 1000;

/**
 * The task queue's running turns parked on a person: on a tool approval (D16) or a call held for an operator (#22);
 * with `conversationId`, that conversation's only.
 */
function parkedTurnsQuery(taskQueue: string, conversationId?: string): string {
  const parked = runningTurnsQuery(taskQueue, ...PARKED_STATUSES);
  return conversationId === undefined ? parked : `${parked} AND ${conversationTurnsQuery(conversationId)}`;
}

/** A parked turn's outcome, read from its search attributes; null for any other. */
function parkedOutcome(raw: RawExecution): ParkedStatus | null {
  const { turnOutcome } = readTurnSearchAttributes(decodedSearchAttributes(raw.searchAttributes?.indexedFields));
  return PARKED_STATUSES.find((status) => status === turnOutcome) ?? null;
}

/**
 * The conversations with a turn parked now, each with what it waits on (its TurnOutcome: AWAITING_APPROVAL or HELD),
 * from Temporal's visibility alone (the ConversationId each parked turn carries with that outcome, running): no query
 * or describe of a turn, so no worker is asked and a list of any length costs one call per thousand parked turns. A
 * conversation runs one turn at a time; were two parked, its latest turn's outcome is the one kept. With
 * `conversationId`, whether that one conversation is parked (the conversation page's status), in one small list.
 */
export async function parkedConversations(
  client: Client,
  taskQueue: string,
  conversationId?: string
): Promise<Map<string, ParkedStatus>> {
  const parked = new Map<string, { outcome: ParkedStatus; turnNumber: number }>();
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: parkedTurnsQuery(taskQueue, conversationId),
      pageSize: PARKED_PAGE_SIZE,
      nextPageToken,
    });
    for (const raw of page.executions ?? []) {
      const { conversationId, turnNumber } = visibleTurn(raw);
      const outcome = parkedOutcome(raw);
      const seen = conversationId ? parked.get(conversationId) : undefined;
      if (conversationId && outcome && (!seen || seen.turnNumber < (turnNumber ?? 0)))
        parked.set(conversationId, { outcome, turnNumber: turnNumber ?? 0 });
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return new Map([...parked].map(([id, { outcome }]) => [id, outcome]));
}
