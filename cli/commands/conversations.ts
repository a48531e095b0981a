import { Client, type Connection } from '@temporalio/client';
import { temporalTurnEnds, type TurnEndReader } from '../../api/turns/turn-ended';
import { missingTurnSearchAttributes } from '../../config/turn-search-attributes';
import { loadEnv } from '../../config/env';
import { connectTemporalClient } from '../../config/temporal-client';
import { configuredTemporal, describeTemporal } from '../../config/temporal-connection';
import { engineDataConverter } from '../../db/data-converter';
import { pruneConversations, type PruneCounts } from '../../db/repositories/retention';
import { errorChain } from '../error-chain';
import type { CliCommand } from '../command';
import { pruneCommand } from '../prune-command';
import { ERASE_USAGE, runErase } from './conversation-erase';

const summary = (c: PruneCounts) =>
  `${c.conversations} conversation(s), ${c.auditRows} audit row(s), ${c.historyRows} history row(s), ` +
  `${c.llmCalls} LLM call log row(s), ${c.turnRequests} turn request(s), ${c.claims} payload claim(s)`;

const skipped = (c: PruneCounts) =>
  c.skippedInFlight > 0 ? `; skipped ${c.skippedInFlight} conversation(s) with a turn in flight` : '';

/** Kept as in flight ones are (exit 0): a nightly run takes them next time, and an alert would page for a race. */
const busy = (c: PruneCounts) =>
  c.skippedBusy > 0
    ? `; skipped ${c.skippedBusy} conversation(s) busy (locked by another transaction, twice): run again to prune them`
    : '';

/** A stopped run's: it did not try them again, and its line already says to run again. */
const busyWhenStopped = (c: PruneCounts) =>
  c.skippedBusy > 0 ? `; skipped ${c.skippedBusy} conversation(s) busy (locked by another transaction)` : '';

/**
 * Asks the Temporal server of TEMPORAL_ADDRESS whether a turn the rows show in flight has ended (api/turns/
 * turn-ended.ts), connecting on the first question only. A turn it does not know counts as ended (its history passed
 * the retention), so a server that is not the engine's must not answer: one whose namespace lacks the turn search
 * attributes is refused. `unreachable` says why nothing was asked: every such turn is then kept.
 */
function temporalTurnQuestions(): {
  turnEnds: NonNullable<Parameters<typeof pruneConversations>[2]>['turnEnds'];
  unreachable(): string | null;
  close(): Promise<void>;
} {
  let connection: Promise<Connection> | undefined;
  let reader: Promise<TurnEndReader> | undefined;
  let failure: string | null = null;
  const open = async (): Promise<TurnEndReader> => {
    const env = loadEnv();
    const settings = configuredTemporal(env);
    const where = `namespace ${env.TEMPORAL_NAMESPACE} on ${describeTemporal(settings)}`;
    try {
      connection = connectTemporalClient(settings, { connectTimeout: 5_000 });
      const missing = Object.keys(await missingTurnSearchAttributes(await connection, env.TEMPORAL_NAMESPACE));
      if (missing.length > 0) throw new Error(`it lacks the turn search attributes (${missing.join(', ')})`);
      const dataConverter = engineDataConverter(env); // a failed turn's failure details are encrypted too
      return temporalTurnEnds(
        new Client({ connection: await connection, namespace: env.TEMPORAL_NAMESPACE, dataConverter }).workflow,
        env.TEMPORAL_TASK_QUEUE
      );
    } catch (err) {
      failure = `${where} did not answer: ${errorChain(err)}`;
      throw err;
    }
  };
  return {
    async turnEnds(conversationId, turnNumber) {
      reader ??= open();
      return (await reader)(conversationId, turnNumber);
    },
    unreachable: () => failure,
    close: async () => {
      await (await connection?.catch(() => undefined))?.close();
    },
  };
}

const pruneConversationsCommand = pruneCommand({
  noun: 'conversations',
  usage: [
    'convengine conversations prune --older-than <duration> [--dry-run]',
    '',
    'Deletes conversations idle for longer than <duration> (e.g. 90d): nothing of them, neither the',
    'conversation row, nor an audit row, nor a turn request, is newer. With each go its audit trail, history,',
    'LLM call log, turn requests and the payload claims (ce_payload_claim) their turns stored that no other',
    'conversation stored too; LLM call log rows older than <duration> that belong to no conversation go too. Deletes in batches (500 conversations examined in each), each its own transaction. --dry-run only counts.',
    'Says how far it got on stderr (at most a line a second). SIGINT or SIGTERM stops it after the batch in',
    'progress: it prints what it pruned and exits 130 (143 for SIGTERM); run it again to continue. A second',
    'signal stops it at once, and the batch in progress is rolled back.',
    'A conversation with a turn in flight (running, waiting for an approval, holding a tool call) is kept',
    'and counted as skipped. Whether such a turn still runs is asked of Temporal (TEMPORAL_ADDRESS,',
    'TEMPORAL_NAMESPACE, which must have the turn search attributes): one it says has ended without a failure',
    'row (terminated, or failed by an older build) or no longer knows does not keep its conversation; while',
    "Temporal does not answer, every one does. A run under the turn's id on another task queue than",
    'TEMPORAL_TASK_QUEUE (another deployment on the namespace) is not that turn: it counts as no longer known.',
    'One another transaction holds locked (a turn writing its rows) is tried once more at the end of the',
    'run, and counted as skipped busy if it still is (exit 0, as for those in flight): run again to prune it.',
    'A stopped run does not try them again: its line counts them, and the next run tries them.',
    'Minimum 1d; choose more than the longest approval timeout of your tools and the longest hold_timeout_ms',
    'of tools that hold calls (24 h when not set).',
  ].join('\n'),
  // Shorter would reach conversations a user may still be typing in, or a turn waiting for an approval.
  minimumAge: { ms: 24 * 60 * 60 * 1000, text: '1d' },
  dryRun: true,
  stopsBetweenBatches: true,
  async prune(db, cutoff, dryRun, run) {
    const temporal = temporalTurnQuestions();
    try {
      const counts = await pruneConversations(db, cutoff, {
        dryRun,
        turnEnds: temporal.turnEnds,
        stop: run.stop,
        // A dry run only reads, and says nothing until it has counted (a signal ends it at once).
        onBatch: dryRun
          ? undefined
          : ({ counts: soFar, examined }) =>
              run.progress(`${examined} conversation(s) examined, pruned ${summary(soFar)} so far`),
      });
      const since = `idle since before ${cutoff.toISOString()}`;
      if (counts.interrupted) {
        const kept = `${skipped(counts)}${busyWhenStopped(counts)}`;
        return { interrupted: `interrupted after pruning ${summary(counts)}, ${since}${kept}; run again to continue` };
      }
      const pruned = `${dryRun ? 'would prune' : 'pruned'} ${summary(counts)}`;
      const unchecked = temporal.unreachable();
      const why = unchecked && counts.skippedInFlight > 0 ? ` (not checked with Temporal: ${unchecked})` : '';
      return `${pruned}, ${since}${skipped(counts)}${why}${busy(counts)}`;
    } finally {
      await temporal.close();
    }
  },
});

/** `conversations prune` and `conversations erase`. */
export const conversationsCommand: CliCommand = {
  usage: `${pruneConversationsCommand.usage}\n\n${ERASE_USAGE}`,
  run: (args, io, env) => (args[0] === 'erase' ? runErase(args, io) : pruneConversationsCommand.run(args, io, env)),
};
