import { databaseAddress } from '../db/address';
import {
  claimDeployment,
  DeploymentMismatchError,
  describeDeployment,
  sameDeployment,
  type Deployment,
} from '../db/deployment';
import type { Database } from '../db/pool';
import { connectionStringOf } from '../db/tools-role';
import { databaseCheck } from './dependency-checks';

/** /readyz's reason, public: it names no namespace or queue of either deployment; the log line names both. */
export const DEPLOYMENT_MISMATCH = 'database bound to another deployment: see the log';

/** The prerequisite monitor's outcome of this check (observability/prerequisites.ts). */
interface DeploymentOutcome {
  reason: string;
  problem: 'DEPLOYMENT_MISMATCH' | null;
  log?: { fields: object; message: string };
  /** The mismatch, naming both deployments: what stops a worker (worker/running-worker.ts). */
  mismatch?: DeploymentMismatchError;
}

/**
 * The database's binding (db/deployment.ts), bound to `own` when unbound: another deployment's refuses every turn and
 * keeps the process unready, until its settings or the binding are fixed. A database not yet migrated, or not
 * answering, is the database check's to report.
 */
export async function deploymentCheck(
  db: Database,
  own: Deployment | undefined
): Promise<DeploymentOutcome | undefined> {
  if (own === undefined) return undefined;
  // Under the check deadline like the other database checks: every /api/ route waits for this one (api/app.ts).
  const binding = await databaseCheck(claimDeployment(db.$client, own), db.$client).catch(() => null);
  if (binding === null || sameDeployment(binding, own)) return { reason: 'ok', problem: null };
  const database = databaseAddress(connectionStringOf(db.$client) ?? undefined);
  const mismatch = new DeploymentMismatchError(database, binding, own);
  const fields = { database, bound: describeDeployment(binding), own: describeDeployment(own) };
  return {
    reason: DEPLOYMENT_MISMATCH,
    problem: 'DEPLOYMENT_MISMATCH',
    log: { fields, message: mismatch.message },
    mismatch,
  };
}
