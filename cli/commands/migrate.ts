import { migrate, migrationReportLines, MIGRATIONS_DIR, newerSchemaWarning } from '../../db/migrate';
import { databaseAddress } from '../../db/address';
import { shownText } from '../../core/text/one-line-text';
import { deploymentOf, describeDeployment, rebindDeployment } from '../../db/deployment';
import { openDatabase } from '../../db/pool';
import { MAINTENANCE_SESSION } from '../../db/session-settings';
import { loadEnv, type Env } from '../../config/env';
import { toolsLoginOf } from '../../db/tools-role';
import { checkToolsLogin } from '../../observability/tools-login';
import { commandDatabaseUrl } from '../environment';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { migrationFailure } from '../database-failure';
import type { Pool } from 'pg';

const OPTIONS = { values: [], flags: ['bind-deployment'], positional: false };

/**
 * Binds the database to the environment's deployment, whatever it was bound to (db/deployment.ts): the one deliberate
 * way to move a database to another Temporal namespace or task queue, and it says what the binding was.
 */
async function bindDeployment(pool: Pool, env: Env, io: CliIo): Promise<void> {
  const own = deploymentOf(env);
  const previous = await rebindDeployment(pool, own);
  const was = previous === null ? 'it was unbound' : `it was bound to ${describeDeployment(previous)}`;
  // The database's name is whatever DATABASE_URL says, controls and all.
  const database = databaseAddress(pool.options.connectionString);
  io.out(shownText(`database ${database} bound to Temporal ${describeDeployment(own)} (${was})`));
}

export const migrateCommand: CliCommand = {
  usage: [
    'convengine migrate [--bind-deployment]',
    '',
    'Applies pending migrations in order, each in its own transaction; re-running is a no-op.',
    "The SQL tools log in as the database's own role, convengine_tools_ro_<database>, with a password derived from",
    "DATABASE_URL's; with TOOLS_DATABASE_URL set, as its role, whose password stays. Refuses a role that holds",
    'privileges in another database. Warns when the SQL tools cannot log in afterwards.',
    '',
    'A database belongs to one deployment: the first `convengine worker`, `api` or `start` on it records its',
    'TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE, and any other process with other ones refuses to start.',
    "--bind-deployment binds the database to this environment's TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE",
    'whatever it was bound to (stop the processes of the old binding first), and prints the old binding.',
  ].join('\n'),
  async run(args, io) {
    const parsed = parseCommandArgs('migrate', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, migrateCommand.usage);
    const url = commandDatabaseUrl(io);
    if (url === null) return 2;
    // Read once the whole environment was found valid (cli/environment.ts), TOOLS_DATABASE_URL included.
    const env = loadEnv();
    const tools = { value: env.TOOLS_DATABASE_URL };
    const handle = openDatabase(url, { max: 1, application_name: 'convengine-migrate' }, MAINTENANCE_SESSION);
    try {
      const report = await migrate(handle.pool, MIGRATIONS_DIR, {
        toolsDatabaseUrl: tools.value,
        lockWait: { timeoutMs: env.MIGRATE_LOCK_WAIT_MS, log: (line) => io.err(line) },
      });
      for (const line of migrationReportLines(report)) io.out(line);
      if (parsed.options.has('bind-deployment')) await bindDeployment(handle.pool, env, io);
      // Not a failure (an older build may run on a newer schema), but never reported as an up-to-date database.
      if (report.unknown.length > 0) io.err(`warning: ${newerSchemaWarning(report.unknown)}`);
      // Not a failure either (the workers' readiness reports it too), but said where the operator looks now.
      const toolsLogin = await checkToolsLogin(toolsLoginOf(env.TOOLS_DATABASE_URL, url));
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
