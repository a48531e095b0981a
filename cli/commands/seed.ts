import { commandDatabaseUrl } from '../environment';
import type { ConfigViolation } from '../../core/config/types';
import { shownText } from '../../core/text/one-line-text';
import { isEngineError } from '../../core/errors';
import { openDatabase } from '../../db/pool';
import { MAINTENANCE_SESSION } from '../../db/session-settings';
import {
  SEED_PACKS,
  UnknownSeedPackError,
  packRowUpgradeLines,
  resolveSeedPacks,
  restoreEarlierPackRows,
  restoreLines,
  seedPacks,
} from '../../db/seed';
import type { Database } from '../../db/pool';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { databaseFailure, type CommandPool } from '../database-failure';
import { violationLine } from '../violation-line';

const USAGE = [
  'convengine seed <pack>... | all',
  'convengine seed --list',
  'convengine seed --restore-earlier',
  '',
  "Inserts the packs' rows that DATABASE_URL lacks (by id) in one transaction and validates the resulting",
  'config; on any violation nothing is applied. Rows already there are kept: seeding again (and `convengine',
  "start`, which seeds its packs on every start) never reverts an author's change. Only a row still exactly as",
  'an earlier pack version shipped it is brought up to date, and the output names it.',
  '',
  '--restore-earlier, before rolling back to an older build: each row this build brings up to date that is still',
  "exactly this build's pack row goes back to the row the database served before (its newest stored snapshot that",
  'had an earlier version); an edited row is never touched. The output names what it restored and what it left.',
  "Run no newer build's `convengine start` afterwards (it seeds, bringing them up to date again).",
].join('\n');

function listPacks(io: CliIo): number {
  const width = Math.max(...SEED_PACKS.map((p) => p.name.length));
  for (const pack of SEED_PACKS) io.out(`${pack.name.padEnd(width)}  ${pack.description}`);
  return 0;
}

async function printFailure(io: CliIo, err: unknown, pool: CommandPool): Promise<number> {
  if (isEngineError(err) && Array.isArray(err.details?.violations)) {
    io.err(shownText(err.message.split('\n')[0] ?? err.message));
    for (const v of err.details.violations as ConfigViolation[]) io.err(violationLine(v));
    return 1;
  }
  io.err(`seed failed: ${await databaseFailure(pool, err)}`);
  return 1;
}

async function seedAndReport(db: Database, packs: readonly string[], io: CliIo): Promise<number> {
  const report = await seedPacks(db, packs);
  const configRows = Object.values(report.configRows).reduce((a, b) => a + (b ?? 0), 0);
  const businessRows = Object.values(report.businessRows).reduce((a, b) => a + b, 0);
  const kept = configRows - report.configInserted;
  io.out(
    `seeded ${report.packs.join(', ')}: ${report.configInserted} config row(s) inserted (${kept} already there), ` +
      `${businessRows} business row(s) written`
  );
  for (const line of packRowUpgradeLines(report)) io.out(line);
  for (const w of report.warnings) io.out(`warning: ${violationLine(w)}`);
  if (report.violations.length > 0) {
    io.err(`the config already had ${report.violations.length} violation(s), not from this seed; it stays refused:`);
    for (const v of report.violations) io.err(violationLine(v));
    return 1;
  }
  io.out(`config version ${report.version}`);
  return 0;
}

async function restoreAndReport(db: Database, io: CliIo): Promise<number> {
  const restore = await restoreEarlierPackRows(db);
  for (const line of restoreLines(restore)) io.out(line);
  io.out(`config version ${restore.version}`);
  return 0;
}

/** The packs named, or an exit code after saying why they cannot be. */
function checkPackNames(names: readonly string[], io: CliIo): number | null {
  if (names.length === 0) return usageError(io, 'name a pack, or "all"', USAGE);
  try {
    resolveSeedPacks(names);
    return null;
  } catch (err) {
    if (!(err instanceof UnknownSeedPackError)) throw err;
    io.err(err.message);
    return 2;
  }
}

export const seedCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const parsed = parseCommandArgs('seed', args, { values: [], flags: ['list', 'restore-earlier'] });
    if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
    const { positional, options } = parsed;
    if (options.has('list')) {
      // `seed --list extra` listed and exited 0, as if the pack names had been read.
      return positional.length > 0 || options.has('restore-earlier')
        ? usageError(io, `seed --list takes nothing else (got: ${args.join(' ')})`, USAGE)
        : listPacks(io);
    }
    const restoring = options.has('restore-earlier');
    if (restoring && positional.length > 0) return usageError(io, '--restore-earlier takes no pack names', USAGE);
    const refused = restoring ? null : checkPackNames(positional, io);
    if (refused !== null) return refused;
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    const handle = openDatabase(url, { max: 1, application_name: 'convengine-seed' }, MAINTENANCE_SESSION);
    try {
      return restoring ? await restoreAndReport(handle.db, io) : await seedAndReport(handle.db, positional, io);
    } catch (err) {
      return await printFailure(io, err, handle.pool);
    } finally {
      await handle.close();
    }
  },
};
