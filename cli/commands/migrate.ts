import { migrate, MIGRATIONS_DIR, newerSchemaWarning } from '../../db/migrate';
import { MAINTENANCE_SESSION, openDatabase } from '../../db/pool';
import { loadEnv } from '../../config/env';
import { toolsLoginOf } from '../../db/tools-role';
import { checkToolsLogin } from '../../observability/tools-login';
import { commandDatabaseUrl } from '../environment';
import { usageError, type CliCommand } from '../command';
import { migrationFailure } from '../database-failure';

export const migrateCommand: CliCommand = {
  usage:
    'convengine migrate\n\nApplies pending migrations in order, each in its own transaction; re-running is a no-op.\n' +
    "The SQL tools log in as the database's own role, convengine_tools_ro_<database>, with a password derived from\n" +
    "DATABASE_URL's; with TOOLS_DATABASE_URL set, as its role, whose password stays. Refuses a role that holds\n" +
    'privileges in another database. Warns when the SQL tools cannot log in afterwards.',
  async run(args, io) {
    if (args.length > 0)
      return usageError(io, `migrate: unexpected argument(s): ${args.join(' ')}`, migrateCommand.usage);
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    // Read once the whole environment was found valid (cli/environment.ts), TOOLS_DATABASE_URL included.
    const env = loadEnv();
    const tools = { value: env.TOOLS_DATABASE_URL };
    const handle = openDatabase(url, { max: 1 }, MAINTENANCE_SESSION);
    try {
      const report = await migrate(handle.pool, MIGRATIONS_DIR, {
        toolsDatabaseUrl: tools.value,
        lockWait: { timeoutMs: env.MIGRATE_LOCK_WAIT_MS, log: (line) => io.err(line) },
      });
      for (const name of report.applied) io.out(`applied ${name}`);
      for (const note of report.toolsRole.notes) io.out(`SQL tools role: ${note}`);
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
