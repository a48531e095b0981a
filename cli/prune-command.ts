import { msToNumber } from '@temporalio/common/lib/time';
import { requireDatabaseUrl } from '../config/env';
import { databaseNowLess } from '../db/now';
import { openDatabase, type Database } from '../db/pool';
import { readOptions, type CliCommand, type CliIo } from './command';
import { databaseError } from './database-failure';
import { interruptedExitCode, StopSignals } from './signals';

export interface PruneCommandSpec {
  /** `claims`: the command is `convengine <noun> prune --older-than <duration>`. */
  noun: string;
  usage: string;
  /** Shorter ages are refused: they guard against a unit typo (`1m` meant as a month) deleting live data. */
  minimumAge: { ms: number; text: string };
  /** Accept `--dry-run` (passed on as `dryRun`). */
  dryRun: boolean;
  /**
   * It deletes in batches, each a transaction of its own, and stops between them (`run.stop`) on SIGINT or SIGTERM.
   * Without, a signal ends it as it ends any command: its one statement is rolled back.
   */
  stopsBetweenBatches: boolean;
  /**
   * Deletes (or counts) what is older than `cutoff`; returns the line to print, or, for a run that stops between
   * batches once `run.stop` is aborted, the line saying what it did before it stopped.
   */
  prune(db: Database, cutoff: Date, dryRun: boolean, run: PruneRun): Promise<string | { interrupted: string }>;
}

/** What a prune that deletes in batches is given: a stop asked for (SIGINT, SIGTERM), and where to say how it goes. */
export interface PruneRun {
  stop: AbortSignal;
  /** A progress line, for stderr: the first is printed, then at most one a second. */
  progress(line: string): void;
}

const PROGRESS_EVERY_MS = 1_000;

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

/**
 * The signals while a prune deletes: the first stops it after the batch in progress, which commits (each batch is a
 * transaction of its own), and it exits 128 + the signal's number; a second ends it at once, and PostgreSQL rolls that
 * batch back. Where there are no batches (`trap` false: a dry run, which only reads, or a prune of one statement) a
 * signal ends the command as usual.
 */
function stopBetweenBatches(io: CliIo, noun: string, trap: boolean) {
  const stop = new AbortController();
  if (!trap) return { stop: stop.signal, close: () => undefined, exitCode: () => 0 };
  const signals = new StopSignals();
  let received: NodeJS.Signals | null = null;
  void signals.requested.then((signal) => {
    received = signal;
    io.err(`${noun} prune: ${signal}: stopping after the batch in progress (again to stop at once; it is rolled back)`);
    stop.abort();
  });
  signals.onHurry(() => process.exit(interruptedExitCode(received ?? 'SIGINT')));
  return { stop: stop.signal, close: () => signals.close(), exitCode: () => interruptedExitCode(received ?? 'SIGINT') };
}

function progressPrinter(io: CliIo, noun: string): (line: string) => void {
  let last: number | null = null;
  return (line) => {
    const now = Date.now();
    if (last !== null && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    io.err(`${noun} prune: ${line}`);
  };
}

async function runPrune(spec: PruneCommandSpec, io: CliIo, ageMs: number, dryRun: boolean): Promise<number> {
  const handle = openDatabase(requireDatabaseUrl(), { max: 1 });
  const signals = stopBetweenBatches(io, spec.noun, spec.stopsBetweenBatches && !dryRun);
  try {
    const cutoff = await databaseNowLess(handle.db, ageMs);
    const progress = progressPrinter(io, spec.noun);
    const outcome = await spec.prune(handle.db, cutoff, dryRun, { stop: signals.stop, progress });
    if (typeof outcome === 'string') {
      io.out(outcome);
      return 0;
    }
    io.out(outcome.interrupted);
    return signals.exitCode();
  } catch (err) {
    // Drizzle's message is the statement and its parameters; the driver's error under it says what went wrong.
    io.err(`${spec.noun} prune failed: ${databaseError(handle.pool, err)}`);
    return 1;
  } finally {
    signals.close();
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
