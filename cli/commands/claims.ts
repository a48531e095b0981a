import { createClaimStore } from '../../db/claims/store';
import { pruneCommand } from '../prune-command';

export const claimsCommand = pruneCommand({
  noun: 'claims',
  usage: [
    'convengine claims prune --older-than <duration>',
    '',
    'Deletes payload claims (ce_payload_claim) that no history can still name: those last referenced',
    'longer ago than <duration> (e.g. 31d, 720h). Every history that stores a reference refreshes it, and',
    'a history is deleted <retention> after its run closes, so choose at least the namespace retention',
    'plus the longest a turn can run (approval expiry). Minimum 1h.',
  ].join('\n'),
  // Shorter than this cannot cover any namespace retention.
  minimumAge: { ms: 60 * 60 * 1000, text: '1h' },
  dryRun: false,
  stopsBetweenBatches: false,
  async prune(db, cutoff) {
    const pruned = await createClaimStore(db).prune(cutoff);
    const mib = (pruned.bytes / (1024 * 1024)).toFixed(1);
    return `pruned ${pruned.claims} claim(s), ${mib} MiB, last referenced before ${cutoff.toISOString()}`;
  },
});
