import { msToNumber } from '@temporalio/common/lib/time';
import { EnvError, requireDatabaseUrl } from '../config/env';
import { openDatabase, type Database } from '../db/pool';
import { parseOptions, type CliCommand, type CliIo } from './command';

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

function parseAge(value: string, minimum: PruneCommandSpec['minimumAge']): number | string {
  let ms: number;
  try {
    ms = msToNumber(value as never);
  } catch {
    return `--older-than ${JSON.stringify(value)} is not a duration (e.g. 31d, 720h)`;
  }
  return ms >= minimum.ms ? ms : `--older-than must be at least ${minimum.text} (got ${value})`;
}

/** The options of `<noun> prune`, or the reason they are refused. */
function pruneOptions(spec: PruneCommandSpec, args: string[]): { ageMs: number; dryRun: boolean } | string {
  const { positional, options } = parseOptions(args);
  const known = spec.dryRun ? ['older-than', 'dry-run'] : ['older-than'];
  const unknown = [...options.keys()].find((name) => !known.includes(name));
  if (positional.length !== 1 || positional[0] !== 'prune') return 'the only sub-command is prune';
  if (unknown) return `unknown option --${unknown}`;
  const olderThan = options.get('older-than')?.at(-1);
  if (olderThan === undefined) return `${spec.noun} prune needs --older-than <duration>`;
  const dryRun = options.get('dry-run')?.at(-1);
  if (dryRun !== undefined && dryRun !== 'true') return '--dry-run takes no value';
  const ageMs = parseAge(olderThan, spec.minimumAge);
  return typeof ageMs === 'string' ? ageMs : { ageMs, dryRun: dryRun !== undefined };
}

async function runPrune(spec: PruneCommandSpec, io: CliIo, ageMs: number, dryRun: boolean): Promise<number> {
  const handle = openDatabase(requireDatabaseUrl(), { max: 1 });
  try {
    io.out(await spec.prune(handle.db, new Date(Date.now() - ageMs), dryRun));
    return 0;
  } catch (err) {
    io.err(`${spec.noun} prune failed: ${(err as Error).message}`);
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
      try {
        return await runPrune(spec, io, parsed.ageMs, parsed.dryRun);
      } catch (err) {
        if (!(err instanceof EnvError)) throw err;
        io.err(err.message);
        return 2;
      }
    },
  };
}
