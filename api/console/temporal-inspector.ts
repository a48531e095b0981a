import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { TurnStatus, type HeldTool, type PendingApproval, type TurnProgress } from '../../workflows/messages';
import { conversationTurnsQuery, readTurnSearchAttributes } from '../../workflows/search-attributes';
import { PayloadEncryptionError } from '../../config/payload-encryption';
import { ApiError, conflict, notFound } from '../errors';
import { pendingActivityView } from '../history/pending-activities';
import { decodeHistoryPayloads } from '../history/decoded-history';
import { resolveStepRunClaims } from '../history/step-run-claims';
import { turnNotFound } from '../turns/turn-id';
import { progressUnavailable, readProgress } from '../turns/turn-worker';
import type { ActivityOperation, TurnHistory, TurnInspector, TurnRunSummary, TurnSummary } from './ports';

const TURN_NUMBER = /-([1-9][0-9]*)$/;

const isNotFound = (err: unknown) => isGrpcServiceError(err) && err.code === GrpcStatus.NOT_FOUND;

/** Temporal's answer to an activity operation, as the console's error. */
function operationError(err: unknown, operation: ActivityOperation): Error {
  if (!isGrpcServiceError(err)) return err instanceof Error ? err : new Error(String(err));
  if (err.code === GrpcStatus.UNIMPLEMENTED) {
    return new ApiError(
      501,
      'ACTIVITY_OPERATION_UNSUPPORTED',
      `This Temporal server does not support activity ${operation}; the activity keeps retrying on its own schedule.`
    );
  }
  if (err.code === GrpcStatus.NOT_FOUND) return notFound('ACTIVITY_NOT_FOUND', 'No such pending activity.');
  if (err.code === GrpcStatus.FAILED_PRECONDITION) return conflict('TURN_NOT_RUNNING', 'The turn is not running.');
  return err;
}

/** The turn's progress, which its worker answers: 404 without the turn, 503 WORKER_UNAVAILABLE without a worker. */
async function progressOf(client: Client, workflowId: string): Promise<TurnProgress> {
  const read = await readProgress(client, workflowId);
  if (!read) throw turnNotFound(workflowId);
  if ('unavailable' in read) throw progressUnavailable(workflowId, read.unavailable);
  return read.progress;
}

function runOf(wf: WorkflowExecutionInfo): TurnRunSummary {
  const { turnOutcome } = readTurnSearchAttributes(wf.searchAttributes);
  return {
    runId: wf.runId,
    status: wf.status.name,
    outcome: turnOutcome ?? null,
    startedAt: wf.startTime.toISOString(),
    closedAt: wf.closeTime?.toISOString() ?? null,
  };
}

/**
 * A conversation's turns in turn order. A turn id has several runs when a failed turn was retried or a new message
 * took its number: the latest is the turn, the others are its `earlierRuns`, so a failed message stays listed.
 */
async function listTurns(client: Client, conversationId: string): Promise<TurnSummary[]> {
  const runs: (TurnRunSummary & { workflowId: string })[] = [];
  for await (const wf of client.workflow.list({ query: conversationTurnsQuery(conversationId) }))
    runs.push({ ...runOf(wf), workflowId: wf.workflowId });
  const turns = new Map<string, TurnSummary>();
  for (const { workflowId, ...run } of runs.sort((a, b) => a.startedAt.localeCompare(b.startedAt))) {
    const before = turns.get(workflowId);
    const earlierRuns = before ? [...before.earlierRuns, withoutRuns(before)] : [];
    const turnNumber = Number(TURN_NUMBER.exec(workflowId)?.[1] ?? 0);
    turns.set(workflowId, { ...run, workflowId, turnNumber, earlierRuns });
  }
  return [...turns.values()].sort((a, b) => a.turnNumber - b.turnNumber);
}

function withoutRuns({ runId, status, outcome, startedAt, closedAt }: TurnSummary): TurnRunSummary {
  return { runId, status, outcome, startedAt, closedAt };
}

/**
 * The turn's latest run and its events, with claim references resolved; null without the turn. The run is read first
 * and its own history then, so the events are that run's even when another run starts in between.
 */
async function turnHistory(client: Client, workflowId: string): Promise<TurnHistory | null> {
  try {
    const { runId } = await client.workflow.getHandle(workflowId).describe();
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    // fetchHistory returns payloads as stored: encrypted (PAYLOAD_ENCRYPTION_KEYS), and a large step run's result a
    // claim reference (db/claims/).
    const { payloadCodecs } = client.options.loadedDataConverter;
    await decodeHistoryPayloads(events, payloadCodecs);
    await resolveStepRunClaims(events, payloadCodecs);
    return { runId, events };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError || isNotFound(err) || isNotFound((err as Error).cause)) return null;
    if (err instanceof PayloadEncryptionError) throw undecryptable(workflowId, err);
    throw err;
  }
}

/**
 * A history this API's keys cannot open (PAYLOAD_ENCRYPTION_KEYS lacks the key it was written under, or its payloads
 * were altered): the turn page cannot be shown, and the answer says why instead of showing ciphertext. A key id is no
 * secret.
 */
function undecryptable(workflowId: string, err: PayloadEncryptionError): ApiError {
  return new ApiError(500, err.type, `The history of ${workflowId} cannot be decrypted: ${err.message}.`);
}

async function operateActivity(
  client: Client,
  workflowId: string,
  activityId: string,
  operation: ActivityOperation
): Promise<void> {
  const request = {
    namespace: client.options.namespace,
    execution: { workflowId },
    id: activityId,
    identity: 'convengine-console',
  };
  const service = client.workflowService;
  try {
    if (operation === 'pause') await service.pauseActivity({ ...request, reason: 'paused from the console' });
    else if (operation === 'unpause') await service.unpauseActivity(request);
    else await service.resetActivity(request);
  } catch (err) {
    throw operationError(err, operation);
  }
}

/** The console's view of turns through the Temporal client: the same calls on our dev server and real Temporal. */
export function temporalInspector(client: Client): TurnInspector {
  return {
    turns: (conversationId) => listTurns(client, conversationId),
    history: (workflowId) => turnHistory(client, workflowId),
    async pendingActivities(workflowId) {
      const description = await client.workflow.getHandle(workflowId).describe();
      return (description.raw.pendingActivities ?? []).map((a) => pendingActivityView(a));
    },
    async pendingApproval(workflowId): Promise<PendingApproval | null> {
      return (await progressOf(client, workflowId)).pending;
    },
    async heldTool(workflowId): Promise<HeldTool | null> {
      const progress = await progressOf(client, workflowId);
      return progress.status === TurnStatus.Held ? (progress.held ?? null) : null;
    },
    operateActivity: (workflowId, activityId, operation) => operateActivity(client, workflowId, activityId, operation),
  };
}
