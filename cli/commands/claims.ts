import { msToNumber } from '@temporalio/common/lib/time';
import { EnvError, requireDatabaseUrl } from '../../config/env';
import { createClaimStore } from '../../db/claims/store';
import { openDatabase } from '../../db/pool';
import { parseOptions, type CliCommand, type CliIo } from '../command';

/** Shorter than this cannot cover any namespace retention: almost surely a typo (`1m` for `1mo`?). */
const MIN_AGE_MS = 60 * 60 * 1000;

const USAGE = [
  'convengine claims prune --older-than <duration>',
  '',
  'Deletes payload claims (ce_payload_claim) that no history can still name: those last referenced',
  'longer ago than <duration> (e.g. 31d, 720h). Every history that stores a reference refreshes it, and',
  'a history is deleted <retention> after its run closes, so choose at least the namespace retention',
  'plus the longest a turn can run (approval expiry). Minimum 1h.',
].join('\n');

function usageError(io: CliIo, message: string): number {
  io.err(message);
  io.err(`Usage: ${USAGE.split('\n')[0]}`);
  return 2;
}

function parseAge(value: string): number | string {
  let ms: number;
  try {
    ms = msToNumber(value as never);
  } catch {
    return `--older-than ${JSON.stringify(value)} is not a duration (e.g. 31d, 720h)`;
  }
  return ms >= MIN_AGE_MS ? ms : `--older-than must be at least 1h (got ${value})`;
}

async function prune(io: CliIo, ageMs: number): Promise<number> {
  const handle = openDatabase(requireDatabaseUrl(), { max: 1 });
  try {
    const cutoff = new Date(Date.now() - ageMs);
    const pruned = await createClaimStore(handle.db).prune(cutoff);
    const mib = (pruned.bytes / (1024 * 1024)).toFixed(1);
    io.out(`pruned ${pruned.claims} claim(s), ${mib} MiB, last referenced before ${cutoff.toISOString()}`);
    return 0;
  } catch (err) {
    io.err(`claims prune failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await handle.close();
  }
}

export const claimsCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const { positional, options } = parseOptions(args);
    const unknown = [...options.keys()].find((name) => name !== 'older-than');
    if (positional.length !== 1 || positional[0] !== 'prune') return usageError(io, 'the only sub-command is prune');
    if (unknown) return usageError(io, `unknown option --${unknown}`);
    const olderThan = options.get('older-than')?.at(-1);
    if (olderThan === undefined) return usageError(io, 'claims prune needs --older-than <duration>');
    const age = parseAge(olderThan);
    if (typeof age === 'string') return usageError(io, age);
    try {
      return await prune(io, age);
    } catch (err) {
      if (!(err instanceof EnvError)) throw err;
      io.err(err.message);
      return 2;
    }
  },
};
