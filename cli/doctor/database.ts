import { databaseAddress } from '../../db/address';
import {
  DeploymentMismatchError,
  describeDeployment,
  readDeploymentBinding,
  sameDeployment,
  type Deployment,
} from '../../db/deployment';
import { newerSchemaWarning, notMigratedMessage, schemaState } from '../../db/migrate';
import { toolsRoleCreationRefusal } from '../../db/tools-role';
import { searchCollationProblem, SEARCH_COLLATION_NAME } from '../../db/search-collation';
import { rawDatabaseError } from '../database-failure';
import { openDoctorDatabase, type Finding } from './finding';

/**
 * Connects and compares the applied migrations with the ones this build ships. A database that lacks some also says
 * when `migrate` would refuse, as DATABASE_URL's login, to create the SQL tools' role (`toolsDatabaseUrl`'s login).
 */
export async function checkDatabase(databaseUrl: string, toolsDatabaseUrl?: string): Promise<Finding> {
  const handle = openDoctorDatabase(databaseUrl);
  try {
    const state = await schemaState(handle.pool);
    if (state.changed.length > 0) {
      return {
        check: 'database',
        level: 'fail',
        message: `migration(s) changed after they were applied (${state.changed.join(', ')}): deploy the build that applied them`,
      };
    }
    const notMigrated = notMigratedMessage(state);
    if (notMigrated !== null) {
      const refusal = await toolsRoleCreationRefusal(handle.pool, toolsDatabaseUrl);
      const message = refusal === null ? notMigrated : `${notMigrated}, which will fail: ${refusal}`;
      return { check: 'database', level: 'fail', message };
    }
    if (state.unknown.length > 0) {
      return { check: 'database', level: 'warn', message: newerSchemaWarning(state.unknown) };
    }
    return { check: 'database', level: 'ok', message: `connected; ${state.appliedCount} migrations applied` };
  } catch (err) {
    return {
      check: 'database',
      level: 'fail',
      message: `cannot read the schema: ${rawDatabaseError(handle.pool, err)}`,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Whether the console's text search can run: it folds case with ICU's root collation, which a PostgreSQL built without
 * ICU (or a database in an encoding ICU does not support) lacks, and every search with text then fails. Turns do not
 * use it, so it warns.
 */
export async function checkSearchCollation(databaseUrl: string): Promise<Finding> {
  const handle = openDoctorDatabase(databaseUrl);
  try {
    const problem = await searchCollationProblem(handle.db);
    if (problem !== null) return { check: 'search-collation', level: 'warn', message: problem };
    return { check: 'search-collation', level: 'ok', message: `collation "${SEARCH_COLLATION_NAME}" (ICU) is there` };
  } catch (err) {
    const message = `cannot check collation "${SEARCH_COLLATION_NAME}": ${rawDatabaseError(handle.pool, err)}`;
    return { check: 'search-collation', level: 'fail', message };
  } finally {
    await handle.close();
  }
}

/**
 * The deployment the database is bound to (db/deployment.ts), against the one checked here: another one fails, as a
 * worker, API or start with these settings would refuse to start. Read only: doctor binds nothing.
 */
export async function checkDeployment(databaseUrl: string, own: Deployment): Promise<Finding> {
  const handle = openDoctorDatabase(databaseUrl);
  try {
    const binding = await readDeploymentBinding(handle.pool);
    if (binding === null) {
      const message =
        'not bound to a deployment yet: the first `convengine worker`, `api` or `start` binds it to its ' +
        `TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE (here ${describeDeployment(own)})`;
      return { check: 'deployment', level: 'ok', message };
    }
    if (!sameDeployment(binding, own)) {
      const address = databaseAddress(handle.pool.options.connectionString);
      return {
        check: 'deployment',
        level: 'fail',
        message: new DeploymentMismatchError(address, binding, own).message,
      };
    }
    const since = binding.boundAt.toISOString();
    return {
      check: 'deployment',
      level: 'ok',
      message: `bound to Temporal ${describeDeployment(binding)} since ${since}`,
    };
  } catch (err) {
    const message = `cannot read the binding: ${rawDatabaseError(handle.pool, err)}`;
    return { check: 'deployment', level: 'fail', message };
  } finally {
    await handle.close();
  }
}
