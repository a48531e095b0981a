import { createHash } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import { turnIdFor, type TurnInput } from '../../core/turn/contracts';
import type { temporal } from '@temporalio/proto';
import type { FastifyInstance } from 'fastify';
import { TEMPORAL_TASK_QUEUE_DEFAULT } from '../../config/env';
import { badRequest, notFound } from '../errors';
import { onConversationNamed } from '../sent-ids';
import { TURN_ID, TURN_NUMBER_PATTERN, turnIdParts, type TurnIdParts } from '../../core/turn/turn-id';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The path parameter `{n}` of a turn. */
export const turnNumberParam = { type: 'string', pattern: `^${TURN_NUMBER_PATTERN}$` } as const;

/**
 * The path parameter of every route that names a turn by its workflow id (`turn-<conversation id>-<turn number>`).
 * A route that declares it refuses a malformed id with 400 INVALID_TURN_ID quoting it (installTurnIdCheck), not
 * with its schema's VALIDATION_FAILED; the pattern documents it.
 */
export const turnIdParam = {
  type: 'string',
  pattern: TURN_ID.source,
  description: 'A turn workflow id: turn-<conversation id>-<turn number, 1 to 999999999>.',
} as const;

/** A turn's workflow id as a route's `:workflowId` path parameter. */
export const turnIdParams = {
  type: 'object',
  required: ['workflowId'],
  properties: { workflowId: turnIdParam },
} as const;

/** The UUID and turn number of a turn id as the client wrote them; 400 INVALID_TURN_ID quoting anything else. */
function sentTurnIdParts(workflowId: string): TurnIdParts {
  const parts = turnIdParts(workflowId);
  if (!parts) {
    const message = `${JSON.stringify(workflowId)} is not a turn id: turn-<conversation id>-<turn number, 1 to 999999999>.`;
    throw badRequest('INVALID_TURN_ID', message);
  }
  return parts;
}

export function parseTurnId(workflowId: string): { conversationId: string; turnNumber: number } {
  const { conversationId, turnNumber } = sentTurnIdParts(workflowId);
  return { conversationId, turnNumber };
}

/** 404 TURN_NOT_FOUND naming the turn. */
export const turnNotFound = (workflowId: string) => notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);

/**
 * Runs a route's `work` on the id of the turn the client named (`sent`) as the workflows are named
 * (`turn-<lower-case uuid>-<n>`): routes take the UUID in either case, as the conversation routes do. Its errors
 * name the turn as the client sent it (an upper-case UUID stays upper-case; onConversationNamed), so the client
 * recognises its own id; `sent` has matched the turn id's pattern, so a message quotes at most `turn-`, a UUID's hex
 * and dashes, and nine digits.
 */
export async function onTurnNamed<T>(sent: string, work: (workflowId: string) => Promise<T>): Promise<T> {
  const { uuid, turnNumber } = sentTurnIdParts(sent);
  return onConversationNamed(uuid, (conversationId) => work(turnIdFor(conversationId, turnNumber)));
}

/**
 * Checks each path parameter declared as turnIdParam before the route's schema is: whichever route names a turn,
 * a malformed id gets the same 400 INVALID_TURN_ID.
 */
export function installTurnIdCheck(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const params = request.routeOptions.schema?.params as { properties?: Record<string, unknown> } | undefined;
    for (const [name, schema] of Object.entries(params?.properties ?? {})) {
      if (schema === turnIdParam) parseTurnId((request.params as Record<string, string>)[name] ?? '');
    }
  });
}

/**
 * The conversation a first message with an Idempotency-Key and no conversationId opens: derived
 * from the key (an RFC 9562 version-8 UUID of its SHA-256), so a retry of that request lands on the
 * same conversation, finds the key's claim there, and gets the first request's result (or 422 with
 * another body) instead of opening a second conversation.
 *
 * A turn's workflow id names its conversation, and workflow ids are shared by every deployment on a Temporal
 * namespace: two deployments (task queues) that derived the same id from the same key would meet on one workflow.
 * So the derivation includes the deployment's task queue, except on the default queue (TEMPORAL_TASK_QUEUE_DEFAULT),
 * whose ids stay what every build before this one derived: an upgraded deployment there keeps its keys' conversations,
 * and a deployment on another queue never derives one of them. (A deployment on another queue that upgrades finds a
 * key it claimed before the upgrade by its claim: TemporalTurnGateway.keyedConversation.)
 */
export function conversationIdForKey(idempotencyKey: string, taskQueue: string): string {
  // '@' and the queue's length keep the (queue, key) pairs apart, from each other and from every unscoped input.
  const scope = taskQueue === TEMPORAL_TASK_QUEUE_DEFAULT ? '' : `@${taskQueue.length}:${taskQueue}`;
  const hash = createHash('sha256').update(`convengine/first-message${scope}/${idempotencyKey}`).digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x80;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The input a run was started with, from its first history event (`first`), or null when that is not the start.
 * fetchHistory returns payloads as stored: through the codecs, a large input is a claim reference (db/claims/).
 */
export async function startInputOf(client: Client, first: HistoryEvent | undefined): Promise<TurnInput | null> {
  const payloads = first?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.[0]) return null;
  return decodeFromPayloadsAtIndex<TurnInput>(client.options.loadedDataConverter, 0, payloads);
}

/** The input a turn was started with, read back from its first history event. */
export async function originalTurnInput(client: Client, handle: WorkflowHandle): Promise<TurnInput> {
  const input = await startInputOf(client, (await handle.fetchHistory()).events?.[0]);
  if (!input) throw new Error(`turn ${handle.workflowId} has no start input in its history`);
  return input;
}
