import { status as GrpcStatus } from '@grpc/grpc-js';
import { isGrpcServiceError, WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { compareCodePoints } from '../../core/text/compare-code-points';
import type { HeldTool, ParkedCall, PendingApproval } from '../../workflows/messages';
import { conversationTurnsQuery, onTaskQueue, readTurnSearchAttributes } from '../../workflows/search-attributes';
import { PayloadEncryptionError } from '../../config/payload-encryption';
import { ApiError, conflict, notFound } from '../errors';
import { pendingActivityView } from '../history/pending-activities';
import { decodeHistoryPayloads, decodePayloadsIn } from '../history/decoded-history';
import { resolveStepRunClaims } from '../history/step-run-claims';
import { onOwnQueue } from '../turns/start';
import { startInputOf, turnNotFound } from '../turns/turn-id';
import { progressUnavailable, readParked } from '../turns/turn-worker';
import type {
  ActivityOperation,
  HistoryEvent,
  TurnHistory,
  TurnInspector,
  TurnPage,
  TurnPageRequest,
  TurnRunId,
  TurnRunSummary,
  TurnSummary,
} from './ports';
import { ReadBudget } from './read-budget';

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

const isMissing = (err: unknown) =>
  err instanceof WorkflowNotFoundError || isNotFound(err) || isNotFound((err as Error).cause);

/**
 * The turn's latest run when it is this deployment's, on its task queue; null without it. A namespace may hold other
 * deployments' turns under any id: the console neither shows nor operates them.
 */
async function ownRun(client: Client, taskQueue: string, workflowId: string) {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    return onOwnQueue(description, taskQueue) ? description : null;
  } catch (err) {
    if (isMissing(err)) return null;
    // describe() decodes the memo, which is encrypted too.
    if (err instanceof PayloadEncryptionError) throw undecryptable(workflowId, err);
    throw err;
  }
}

/** The turn's latest run on this deployment's task queue; 404 TURN_NOT_FOUND without it. */
async function ownRunOrNotFound(client: Client, taskQueue: string, workflowId: string) {
  const run = await ownRun(client, taskQueue, workflowId);
  if (!run) throw turnNotFound(workflowId);
  return run;
}

/**
 * What the turn waits on, as its memo says: 404 without the turn. A turn parked before its memo said is asked its
 * worker: 503 WORKER_UNAVAILABLE without one.
 */
async function parkedOf(client: Client, taskQueue: string, workflowId: string): Promise<ParkedCall> {
  const run = await ownRunOrNotFound(client, taskQueue, workflowId);
  const read = await readParked(client, workflowId, {
    ...run,
    outcome: readTurnSearchAttributes(run.searchAttributes).turnOutcome,
  });
  if (!read) throw turnNotFound(workflowId);
  if ('unavailable' in read) throw progressUnavailable(workflowId, read.unavailable);
  return read.parked;
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

/** Runs per visibility page: a page of turns is most often one list call (a turn has one run, a few when retried). */
const RUNS_PER_LIST = 250;

/** A conversation's runs on this deployment's queue numbered after `after` (and through `through`, when given). */
const turnsQuery = (taskQueue: string, conversationId: string, after: number, through?: number) =>
  onTaskQueue(
    conversationTurnsQuery(conversationId, through === undefined ? { after } : { after, through }),
    taskQueue
  );

/**
 * One page of a conversation's turns in turn order: the turn numbers after `after`, at most `limit` of them, read by
 * a visibility query on TurnNumber (visibility on SQL cannot sort by it, so the page is a range of numbers, not the
 * next `limit` turns held), and whether a turn follows (one more call, of one row). A range Temporal holds no turn of
 * (past its retention) while later turns remain is skipped: the page starts at the first turn still held, so no page
 * is empty but the last. A turn id has several runs when a failed turn was retried or a new message took its number:
 * the latest is the turn, the others its `earlierRuns`.
 */
async function turnPage(
  client: Client,
  taskQueue: string,
  conversationId: string,
  page: TurnPageRequest
): Promise<TurnPage> {
  const read = async (after: number) => {
    const runs: (TurnRunSummary & { workflowId: string })[] = [];
    // Another deployment's runs under the same ids (a conversation id sent to both) are not this conversation's.
    const query = turnsQuery(taskQueue, conversationId, after, after + page.limit);
    for await (const wf of client.workflow.list({ query, pageSize: RUNS_PER_LIST }))
      runs.push({ ...runOf(wf), workflowId: wf.workflowId });
    const through = after + page.limit;
    return { runs, through, more: await anyTurnAfter(client, taskQueue, conversationId, through) };
  };
  let range = await read(page.after);
  if (range.runs.length === 0 && range.more) {
    const first = await firstTurnAfter(client, taskQueue, conversationId, range.through);
    range = await read(first - 1);
  }
  return { turns: turnsOf(range.runs), next: range.more ? range.through : null };
}

/** Whether the conversation has a turn numbered after `after`: the first row of one list call, if any. */
async function anyTurnAfter(
  client: Client,
  taskQueue: string,
  conversationId: string,
  after: number
): Promise<boolean> {
  const query = turnsQuery(taskQueue, conversationId, after);
  for await (const _wf of client.workflow.list({ query, pageSize: 1 })) return true;
  return false;
}

/**
 * The first turn number after `after` that Temporal holds, when one is known to follow. Visibility cannot order by
 * TurnNumber, so it is found by counting: a range doubled until it holds a turn, then halved down to that turn's
 * number, about 2·log2(gap) count calls, made only when a whole page fell in a retention gap.
 */
async function firstTurnAfter(client: Client, taskQueue: string, conversationId: string, after: number) {
  const held = async (through: number) =>
    (await client.workflow.count(turnsQuery(taskQueue, conversationId, after, through))).count > 0;
  let width = 1;
  while (!(await held(after + width))) {
    if (after + width * 2 > Number.MAX_SAFE_INTEGER) throw new Error(`no turn of ${conversationId} after ${after}`);
    width *= 2;
  }
  // None is held through `none`, one is through `some`.
  let [none, some] = [after + Math.floor(width / 2), after + width];
  if (width === 1) none = after;
  while (some - none > 1) {
    const middle = none + Math.floor((some - none) / 2);
    if (await held(middle)) some = middle;
    else none = middle;
  }
  return some;
}

/** Runs grouped by turn id, the latest as the turn, in turn order. */
function turnsOf(runs: (TurnRunSummary & { workflowId: string })[]): TurnSummary[] {
  const turns = new Map<string, TurnSummary>();
  // Start times are ISO 8601 in UTC, so code point order is time order, on a host of any locale.
  for (const { workflowId, ...run } of runs.sort((a, b) => compareCodePoints(a.startedAt, b.startedAt))) {
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
 * The turn's latest run and its events, with claim references resolved; null without the turn (or when it is another
 * queue's). The run is read first and its own history then, so the events are that run's even when another run starts
 * in between.
 */
async function turnHistory(client: Client, taskQueue: string, workflowId: string): Promise<TurnHistory | null> {
  const run = await ownRun(client, taskQueue, workflowId);
  if (!run) return null;
  try {
    const events = (await client.workflow.getHandle(workflowId, run.runId).fetchHistory()).events ?? [];
    // fetchHistory returns payloads as stored: encrypted (PAYLOAD_ENCRYPTION_KEYS), and a large step run's result a
    // claim reference (db/claims/).
    const { payloadCodecs } = client.options.loadedDataConverter;
    await decodeHistoryPayloads(events, payloadCodecs);
    await resolveStepRunClaims(events, payloadCodecs);
    return { runId: run.runId, events, startedWith: await startedWith(client, events[0]) };
  } catch (err) {
    if (isMissing(err)) return null;
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

/**
 * The message a run was started with, from its start event; null when it cannot be read (its input's claim is gone
 * or unreadable): the page then shows the message once the run's USER_INPUT row has it, as before.
 */
async function startedWith(client: Client, first: HistoryEvent | undefined): Promise<string | null> {
  try {
    const message = (await startInputOf(client, first))?.message;
    return typeof message === 'string' ? message : null;
  } catch {
    return null;
  }
}

/** Start events read at once for one page of turns: a page names up to 200, most often none or one (running). */
const START_READS = 4;

/** Each run's start message, reading only its first event; a run Temporal cannot answer for is left out. */
async function startMessages(client: Client, runs: readonly TurnRunId[]): Promise<Map<string, string>> {
  const budget = new ReadBudget(START_READS);
  const messages = new Map<string, string>();
  await Promise.all(
    runs.map((execution) =>
      budget.run(async () => {
        const { history } = await client.workflowService
          .getWorkflowExecutionHistory({ namespace: client.options.namespace, execution, maximumPageSize: 1 })
          .catch(() => ({ history: null }));
        const message = await startedWith(client, history?.events?.[0] ?? undefined);
        if (message !== null) messages.set(execution.runId, message);
      })
    )
  );
  return messages;
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

/**
 * The console's view of the turns of its deployment's task queue through the Temporal client: the same calls on our
 * dev server and real Temporal.
 */
export function temporalInspector(client: Client, taskQueue: string): TurnInspector {
  return {
    turns: (conversationId, page) => turnPage(client, taskQueue, conversationId, page),
    history: (workflowId) => turnHistory(client, taskQueue, workflowId),
    startMessages: (runs) => startMessages(client, runs),
    async pendingActivities(workflowId) {
      const description = await ownRunOrNotFound(client, taskQueue, workflowId);
      const pending = description.raw.pendingActivities ?? [];
      // As stored: their payloads (a last failure's details among them) encrypted under PAYLOAD_ENCRYPTION_KEYS.
      await decodePayloadsIn(pending, client.options.loadedDataConverter.payloadCodecs).catch((err: unknown) => {
        throw err instanceof PayloadEncryptionError ? undecryptable(workflowId, err) : err;
      });
      return pending.map((a) => pendingActivityView(a));
    },
    async pendingApproval(workflowId): Promise<PendingApproval | null> {
      return (await parkedOf(client, taskQueue, workflowId)).pending;
    },
    async heldTool(workflowId): Promise<HeldTool | null> {
      return (await parkedOf(client, taskQueue, workflowId)).held;
    },
    async operateActivity(workflowId, activityId, operation) {
      await ownRunOrNotFound(client, taskQueue, workflowId);
      await operateActivity(client, workflowId, activityId, operation);
    },
  };
}
