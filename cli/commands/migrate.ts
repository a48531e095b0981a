import { migrate, MIGRATIONS_DIR, newerSchemaWarning } from '../../db/migrate';
import { openDatabase } from '../../db/pool';
import { loadEnv } from '../../config/env';
import { toolsLoginOf } from '../../db/tools-role';
import { checkToolsLogin } from '../../observability/tools-login';
import { commandDatabaseUrl } from '../environment';
import { usageError, type CliCommand } from '../command';
import { migrationFailure } from '../database-failure';

export const migrateCommand: CliCommand = {
  usage:
    'convengine migrate\n\nApplies pending migrations in order, each in its own transaction; re-running is a no-op.\n' +
    'With TOOLS_DATABASE_URL set, the SQL tools role keeps its password; unset, it gets one derived from\n' +
    "DATABASE_URL's. Warns when the SQL tools cannot log in afterwards.",
  async run(args, io) {
    if (args.length > 0)
      return usageError(io, `migrate: unexpected argument(s): ${args.join(' ')}`, migrateCommand.usage);
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    // Read once the whole environment was found valid (cli/environment.ts), TOOLS_DATABASE_URL included.
    const tools = { value: loadEnv().TOOLS_DATABASE_URL };
    const handle = openDatabase(url, { max: 1 });
    try {
      const report = await migrate(handle.pool, MIGRATIONS_DIR, { toolsDatabaseUrlSet: tools.value !== undefined });
      for (const name of report.applied) io.out(`applied ${name}`);
      io.out(`${report.applied.length} migration(s) applied, ${report.alreadyApplied.length} already applied`);
      // Not a failure (an older build may run on a newer schema), but never reported as an up-to-date database.
      if (report.unknown.length > 0) io.err(`warning: ${newerSchemaWarning(report.unknown)}`);
      // Not a failure either (the workers' readiness reports it too), but said where the operator looks now.
      const toolsLogin = await checkToolsLogin(toolsLoginOf(tools.value, url));
      if (toolsLogin.log) io.err(`warning: ${toolsLogin.log.message}`);
      return 0;
    } catch (err) {
      io.err(`migrate failed: ${migrationFailure(handle.pool, err)}`);
      return 1;
    } finally {
      await handle.close();
    }
  },
};
