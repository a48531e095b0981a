import { msToNumber } from '@temporalio/common/lib/time';
import { requireDatabaseUrl } from '../config/env';
import { databaseNowLess } from '../db/now';
import { openDatabase, type Database } from '../db/pool';
import { readOptions, type CliCommand, type CliIo } from './command';
import { databaseError } from './database-failure';

export interface PruneCommandSpec {
  /** `claims`: the command is `convengine <noun> prune --older-than <duration>`. */
  noun: string;
  usage: string;
  /** Shorter ages are refused: they guard against a unit typo (`1m` meant as a month) deleting live data. */
  minimumAge: { ms: number; text: string };
  /** Accept `--dry-run` (passed on as `dryRun`). */
  dryRun: boolean;
  /** Deletes (or counts) what is older than `cutoff`; returns the line to print. */
  prune(db: Database, cutoff: Date, dryRun: boolean): Promise<string>;
}

/** Longer ages put the cutoff before any date the database (or Date) can hold: "Invalid time value", NaN params. */
const MAXIMUM_AGE = { ms: msToNumber('100y'), text: '100 years' }; // a year as --older-than counts it (365.25 days)

function parseAge(value: string, minimum: PruneCommandSpec['minimumAge']): number | string {
  let ms: number;
  try {
    ms = msToNumber(value as never);
  } catch {
    return `--older-than ${JSON.stringify(value)} is not a duration (e.g. 31d, 720h)`;
  }
  if (!(ms >= minimum.ms)) return `--older-than must be at least ${minimum.text} (got ${value})`;
  return ms <= MAXIMUM_AGE.ms ? ms : `--older-than is too large (at most ${MAXIMUM_AGE.text}; got ${value})`;
}

/** The options of `<noun> prune`, or the reason they are refused. */
function pruneOptions(spec: PruneCommandSpec, args: string[]): { ageMs: number; dryRun: boolean } | string {
  const parsed = readOptions(args, { values: ['older-than'], flags: spec.dryRun ? ['dry-run'] : [] });
  if (typeof parsed === 'string') return parsed;
  const { positional, options, unknown } = parsed;
  if (positional.length !== 1 || positional[0] !== 'prune') return 'the only sub-command is prune';
  if (unknown.length > 0) return `unknown option ${unknown[0]}`;
  const olderThan = options.get('older-than')?.at(-1);
  if (olderThan === undefined) return `${spec.noun} prune needs --older-than <duration>`;
  const ageMs = parseAge(olderThan, spec.minimumAge);
  return typeof ageMs === 'string' ? ageMs : { ageMs, dryRun: options.has('dry-run') };
}

async function runPrune(spec: PruneCommandSpec, io: CliIo, ageMs: number, dryRun: boolean): Promise<number> {
  const handle = openDatabase(requireDatabaseUrl(), { max: 1 });
  try {
    io.out(await spec.prune(handle.db, await databaseNowLess(handle.db, ageMs), dryRun));
    return 0;
  } catch (err) {
    // Drizzle's message is the statement and its parameters; the driver's error under it says what went wrong.
    io.err(`${spec.noun} prune failed: ${databaseError(handle.pool, err)}`);
    return 1;
  } finally {
    await handle.close();
  }
}

/** A housekeeping command that deletes rows by age: exit 2 on bad usage, 1 when the database refuses. */
export function pruneCommand(spec: PruneCommandSpec): CliCommand {
  return {
    usage: spec.usage,
    async run(args, io) {
      const parsed = pruneOptions(spec, args);
      if (typeof parsed === 'string') {
        io.err(parsed);
        io.err(`Usage: ${spec.usage.split('\n')[0]}`);
        return 2;
      }
      // DATABASE_URL unset: its EnvError ends the command with exit 2 (cli/environment.ts).
      return runPrune(spec, io, parsed.ageMs, parsed.dryRun);
    },
  };
}
