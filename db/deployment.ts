import type { Pool, PoolClient } from 'pg';
import type { Env } from '../config/env';
import { databaseAddress } from './address';
import { sqlStateOf } from './error-text';

/**
 * A Temporal deployment: the namespace and task queue its workers poll and its API starts turns on. Two deployments
 * on one Temporal server differ only in these, so they are what a database is bound to (migration 0026).
 */
export interface Deployment {
  namespace: string;
  taskQueue: string;
}

/** The deployment a database is bound to, and since when. */
export interface DeploymentBinding extends Deployment {
  boundAt: Date;
}

type Queryable = Pick<Pool, 'query'> | PoolClient;

/** How an operator moves a database to another deployment on purpose (docs/operations.md, "One database per deployment"). */
export const REBIND_COMMAND = 'convengine migrate --bind-deployment';

const UNDEFINED_TABLE = '42P01';

/** `namespace "a", task queue "b"`: quoted, as names may hold spaces or be empty-looking. */
export function describeDeployment({ namespace, taskQueue }: Deployment): string {
  return `namespace ${JSON.stringify(namespace)}, task queue ${JSON.stringify(taskQueue)}`;
}

/** The deployment a process is configured for. */
export const deploymentOf = (env: Pick<Env, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE'>): Deployment => ({
  namespace: env.TEMPORAL_NAMESPACE,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
});

export const sameDeployment = (a: Deployment, b: Deployment): boolean =>
  a.namespace === b.namespace && a.taskQueue === b.taskQueue;

/** A process configured for one deployment started on the database of another. */
export class DeploymentMismatchError extends Error {
  readonly type = 'DEPLOYMENT_MISMATCH';
  constructor(
    readonly database: string,
    readonly bound: DeploymentBinding,
    readonly own: Deployment
  ) {
    super(
      `the database at ${database} belongs to another deployment: it is bound to Temporal ${describeDeployment(bound)} ` +
        `(since ${bound.boundAt.toISOString()}), and this process has ${describeDeployment(own)} ` +
        "(TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE). Point DATABASE_URL at this deployment's own database, or set " +
        'TEMPORAL_NAMESPACE and TEMPORAL_TASK_QUEUE to the bound ones; to move the database to this deployment on ' +
        `purpose, stop the processes that use it and run \`${REBIND_COMMAND}\` with this process's environment`
    );
    this.name = 'DeploymentMismatchError';
  }
}

interface BindingRow {
  temporal_namespace: string;
  task_queue: string;
  bound_at: Date;
}

const bindingOf = (row: BindingRow): DeploymentBinding => ({
  namespace: row.temporal_namespace,
  taskQueue: row.task_queue,
  boundAt: row.bound_at,
});

const COLUMNS = 'temporal_namespace, task_queue, bound_at';

/** Null when the database is not bound yet, or not migrated as far as migration 0026. */
export async function readDeploymentBinding(db: Queryable): Promise<DeploymentBinding | null> {
  try {
    const { rows } = await db.query<BindingRow>(`SELECT ${COLUMNS} FROM ce_deployment`);
    return rows[0] ? bindingOf(rows[0]) : null;
  } catch (err) {
    if (sqlStateOf(err) === UNDEFINED_TABLE) return null;
    throw err;
  }
}

/**
 * The database's binding, recorded as `own` when it has none (the first process to start on it binds it); null when
 * the database lacks migration 0026 (the process reports it not migrated, and binds it once it is).
 */
export async function claimDeployment(db: Queryable, own: Deployment): Promise<DeploymentBinding | null> {
  try {
    // Read first: every later check of a bound database is one read, never a write.
    const { rows } = await db.query<BindingRow>(`SELECT ${COLUMNS} FROM ce_deployment`);
    if (rows[0]) return bindingOf(rows[0]);
    const inserted = await db.query<BindingRow>(
      `INSERT INTO ce_deployment (temporal_namespace, task_queue) VALUES ($1, $2)
       ON CONFLICT (id) DO NOTHING RETURNING ${COLUMNS}`,
      [own.namespace, own.taskQueue]
    );
    // Another process bound it between the read and the insert: its binding holds.
    return inserted.rows[0] ? bindingOf(inserted.rows[0]) : readDeploymentBinding(db);
  } catch (err) {
    if (sqlStateOf(err) === UNDEFINED_TABLE) return null;
    throw err;
  }
}

/** Binds the database when it is unbound; throws DeploymentMismatchError when it is bound to another deployment. */
export async function bindOwnDeployment(pool: Pool, own: Deployment): Promise<DeploymentBinding | null> {
  const binding = await claimDeployment(pool, own);
  if (binding && !sameDeployment(binding, own))
    throw new DeploymentMismatchError(databaseAddress(pool.options.connectionString), binding, own);
  return binding;
}

/** Binds the database to `own` whatever it was bound to; returns the binding it replaced (null: none). */
export async function rebindDeployment(db: Queryable, own: Deployment): Promise<DeploymentBinding | null> {
  const previous = await readDeploymentBinding(db);
  await db.query(
    `INSERT INTO ce_deployment (temporal_namespace, task_queue) VALUES ($1, $2)
     ON CONFLICT (id) DO UPDATE SET temporal_namespace = $1, task_queue = $2, bound_at = now()`,
    [own.namespace, own.taskQueue]
  );
  return previous;
}
