import { migrate, newerSchemaWarning } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { commandDatabaseUrl } from '../environment';
import type { CliCommand } from '../command';

export const migrateCommand: CliCommand = {
  usage:
    'convengine migrate\n\nApplies pending migrations in order, each in its own transaction; re-running is a no-op.',
  async run(args, io) {
    if (args.length > 0) {
      io.err(`migrate takes no arguments (got: ${args.join(' ')})`);
      return 2;
    }
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    const handle = openDatabase(url, { max: 1 });
    try {
      const report = await migrate(handle.pool);
      for (const name of report.applied) io.out(`applied ${name}`);
      io.out(`${report.applied.length} migration(s) applied, ${report.alreadyApplied.length} already applied`);
      // Not a failure (an older build may run on a newer schema), but never reported as an up-to-date database.
      if (report.unknown.length > 0) io.err(`warning: ${newerSchemaWarning(report.unknown)}`);
      return 0;
    } catch (err) {
      io.err(`migrate failed: ${(err as Error).message}`);
      return 1;
    } finally {
      await handle.close();
    }
  },
};
