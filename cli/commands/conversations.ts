import { pruneConversations, type PruneCounts } from '../../db/repositories/retention';
import { pruneCommand } from '../prune-command';

const summary = (c: PruneCounts) =>
  `${c.conversations} conversation(s), ${c.auditRows} audit row(s), ${c.historyRows} history row(s), ` +
  `${c.llmCalls} LLM call log row(s), ${c.turnRequests} turn request(s)`;

const skipped = (c: PruneCounts) =>
  c.skippedInFlight > 0 ? `; skipped ${c.skippedInFlight} conversation(s) with a turn in flight` : '';

export const conversationsCommand = pruneCommand({
  noun: 'conversations',
  usage: [
    'convengine conversations prune --older-than <duration> [--dry-run]',
    '',
    'Deletes conversations idle for longer than <duration> (e.g. 90d): nothing of them, neither the',
    'conversation row, nor an audit row, nor a turn request, is newer. With each go its audit trail, history,',
    'LLM call log and turn requests; LLM call log rows older than <duration> that belong to no conversation',
    'go too. Deletes in batches of 500 conversations, each its own transaction. --dry-run only counts.',
    'A conversation with a turn in flight (running, waiting for an approval, holding a tool call) is kept',
    'and counted as skipped. Minimum 1d; choose more than the longest approval timeout of your tools and',
    'the longest hold_timeout_ms of tools that hold calls (24 h when not set).',
  ].join('\n'),
  // Shorter would reach conversations a user may still be typing in, or a turn waiting for an approval.
  minimumAge: { ms: 24 * 60 * 60 * 1000, text: '1d' },
  dryRun: true,
  async prune(db, cutoff, dryRun) {
    const counts = await pruneConversations(db, cutoff, { dryRun });
    const pruned = `${dryRun ? 'would prune' : 'pruned'} ${summary(counts)}`;
    return `${pruned}, idle since before ${cutoff.toISOString()}${skipped(counts)}`;
  },
});
