import { WorkflowClient, type WorkflowExecutionDescription, type WorkflowHandle } from '@temporalio/client';
import type { temporal as proto } from '@temporalio/proto';
import type { PayloadCodec } from '@temporalio/common';
import { hasStepRunClaims, resolveStepRunClaims } from '../../api/history/step-run-claims';
import { loadEnv, type Env } from '../../config/env';
import { configuredTemporal } from '../../config/temporal-connection';
import { parseCommandArgs, usageError, type CliCommand } from '../command';
import { pendingActivityView } from '../../api/history/pending-activities';
import { failureOf } from '../../api/history/public-failure';
import { formatOpenTurn, formatTimeline, type OpenTurn } from '../history/timeline';
import { errorChain } from '../error-chain';
import { addressOption, withTemporalConnection } from '../temporal/connect';
import { ClaimCheckError } from '../../db/claims/codec';
import { engineDataConverter } from '../../db/data-converter';
import { decodeHistoryPayloads, decodePayloadsIn } from '../../api/history/decoded-history';
import { databaseError } from '../database-failure';
import { openDatabase } from '../../db/pool';
import { canonicalTurnId } from '../../core/turn/turn-id';
import { onOwnQueue } from '../../api/turns/start';

const OPTIONS = { values: ['address', 'namespace', 'run', 'task-queue'] };

const USAGE = [
  'convengine history <workflowId> [--address host:port] [--namespace ns] [--run <runId>] [--task-queue q]',
  '',
  'Activities with their summaries, attempts and failures, guardrail / loop-limit decisions,',
  'timers, search attributes, resets and other workflow task failures, and the outcome. A turn still',
  'running is described too: each pending activity with its attempt, last failure and next attempt.',
  "Default address: TEMPORAL_ADDRESS or 127.0.0.1:7233. Only a turn of the deployment's task queue is shown",
  '(--task-queue, TEMPORAL_TASK_QUEUE or convengine-turns): another deployment on the namespace has turns of its own.',
  'Encrypted payloads are decrypted with PAYLOAD_ENCRYPTION_KEYS.',
].join('\n');

const ONE_LINE_EACH = 'step runs with claim-checked results show as one line each';

/**
 * A step run whose result reached CLAIM_CHECK_THRESHOLD_BYTES holds a claim reference in history: its
 * body, in ce_payload_claim (DATABASE_URL), lists the steps it ran. Without it the run is one line. A claim that is
 * gone is a note; a database that could not be read (down, silent past its connect timeout, a failed query) is the
 * command's failure (null: read), so a script does not take the shortened timeline for the whole.
 */
async function resolveClaims(
  events: proto.api.history.v1.IHistoryEvent[],
  env: Env,
  err: (line: string) => void
): Promise<string | null> {
  if (!hasStepRunClaims(events)) return null;
  if (!env.DATABASE_URL) {
    err(`note: ${ONE_LINE_EACH}; set DATABASE_URL to list their steps`);
    return null;
  }
  const handle = openDatabase(env.DATABASE_URL, { max: 1 });
  try {
    const { payloadCodecs } = engineDataConverter(env, handle.db);
    const unresolved = await resolveStepRunClaims(events, payloadCodecs ?? []);
    if (!unresolved) return null;
    const reason = databaseError(handle.pool, unresolved.failure);
    if (unresolved.failure instanceof ClaimCheckError) err(`note: ${ONE_LINE_EACH}: ${reason}`);
    return unresolved.failure instanceof ClaimCheckError ? null : reason;
  } finally {
    await handle.close();
  }
}

/** A running turn's status and pending activities (the Web UI's Pending Activities); null once it has closed. */
function openTurn(description: WorkflowExecutionDescription): OpenTurn | null {
  if (description.status.name !== 'RUNNING') return null;
  return {
    status: description.status.name,
    runId: description.runId,
    taskQueue: description.taskQueue,
    // In full, as the timeline shows a step's failure: the reader is an operator.
    pending: (description.raw.pendingActivities ?? []).map((a) => pendingActivityView(a, failureOf)),
  };
}

/**
 * The turn's history and, while it runs, what it waits on; or the task queue of a turn that is not on `taskQueue`
 * (another deployment's turn on the namespace).
 */
async function readTurn(handle: WorkflowHandle, taskQueue: string, codecs: readonly PayloadCodec[]) {
  const description = await handle.describe();
  if (!onOwnQueue(description, taskQueue)) return { otherQueue: description.taskQueue };
  // Pending activities' last failures are as stored: their messages in encodedAttributes, maybe encrypted.
  await decodePayloadsIn(description.raw.pendingActivities ?? [], codecs);
  return { history: await handle.fetchHistory(), open: openTurn(description) };
}

export const historyCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('history', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { positional, options } = parsed;
    const [sent] = positional;
    if (!sent || positional.length > 1) {
      io.err('history needs exactly one workflow id, e.g. turn-<conversationId>-1');
      return 2;
    }
    // A turn is named by its conversation's UUID in lower case; the API takes it in either case, and so does this.
    const workflowId = canonicalTurnId(sent) ?? sent;
    const given = addressOption(options);
    if (typeof given === 'string') return usageError(io, given, USAGE);
    const env = loadEnv();
    const temporal = configuredTemporal(env, given.address);
    const namespace = options.get('namespace')?.at(-1) ?? env.TEMPORAL_NAMESPACE;
    const runId = options.get('run')?.at(-1);
    const taskQueue = options.get('task-queue')?.at(-1) ?? env.TEMPORAL_TASK_QUEUE;
    // Payloads as stored are ciphertext under PAYLOAD_ENCRYPTION_KEYS, which this command must hold to show them.
    const dataConverter = engineDataConverter(env);
    try {
      const read = await withTemporalConnection(temporal, (connection) =>
        readTurn(
          new WorkflowClient({ connection, namespace, dataConverter }).getHandle(workflowId, runId),
          taskQueue,
          dataConverter.payloadCodecs ?? []
        )
      );
      if ('otherQueue' in read) {
        const queue = read.otherQueue;
        io.err(
          `cannot read the history of ${sent}: it is a turn of task queue ${queue}, not ${taskQueue} (another ` +
            `deployment on namespace ${namespace}; --task-queue ${queue} reads it)`
        );
        return 1;
      }
      const { history, open } = read;
      const events = history.events ?? [];
      await decodeHistoryPayloads(events, dataConverter.payloadCodecs ?? []);
      const unreadClaims = await resolveClaims(events, env, io.err);
      for (const line of formatTimeline(workflowId, events)) io.out(line);
      if (open) for (const line of formatOpenTurn(open, events)) io.out(line);
      if (unreadClaims === null) return 0;
      io.err(`cannot read the claim-checked step runs of ${sent} (${ONE_LINE_EACH}): ${unreadClaims}`);
      return 1;
    } catch (err) {
      io.err(`cannot read the history of ${sent}: ${errorChain(err)}`);
      return 1;
    }
  },
};
