import { DATABASE_BUSY_MEANING } from '../db/connection-loss';

/**
 * What a turn needs before it can run, beyond a reachable database and Temporal: every migration this
 * build ships applied, and the turn search attributes registered on the namespace. The API and the
 * worker stay up without them (readiness keeps traffic away; a restart loop would only delay the
 * recovery once `convengine migrate` or `setup-temporal` has run) and report which one is missing.
 */
export type PrerequisiteProblem =
  | 'DATABASE_UNREACHABLE'
  | 'DATABASE_BUSY'
  | 'DATABASE_NOT_MIGRATED'
  | 'TEMPORAL_UNREACHABLE'
  | 'TEMPORAL_NAMESPACE_MISSING'
  | 'SEARCH_ATTRIBUTES_MISSING'
  | 'CONFIG_EMPTY'
  | 'DEPLOYMENT_MISMATCH';

export interface PrerequisiteStatus {
  /** `ok`, or the /readyz reason for that dependency. */
  database: string;
  temporal: string;
  /** The SQL tools' login, when the process runs them (the worker): `ok` or the /readyz reason. */
  tools?: string;
  /** The database's deployment binding, when the process checks it (targets.deployment): `ok` or the reason. */
  deployment?: string;
  /** The first problem, for a refused request; null when both are ok. */
  problem: PrerequisiteProblem | null;
  /**
   * What an operator must know but that stops no turn, by subject (`database`, `config`): readiness reports it
   * beside its checks and stays ready.
   */
  warnings: Partial<Record<'database' | 'config' | 'search', string>>;
}

export const NOT_MIGRATED = 'not migrated: run convengine migrate';
export const SEARCH_ATTRIBUTES_MISSING = 'search attributes missing: run convengine setup-temporal';
export const NAMESPACE_MISSING = 'namespace missing: run convengine setup-temporal';

/** What the log and a worker that cannot start say of a namespace that does not exist. */
export function namespaceMissing(namespace: string): string {
  return `namespace ${namespace} does not exist: run \`convengine setup-temporal\``;
}

/** What a refused turn says, per problem (the API's 503). */
export const PREREQUISITE_MESSAGES: Record<PrerequisiteProblem, string> = {
  DATABASE_UNREACHABLE: 'The database is unreachable; retry later.',
  DATABASE_BUSY: `The database is busy: ${DATABASE_BUSY_MEANING}; retry later.`,
  DATABASE_NOT_MIGRATED: 'The database lacks migrations this build needs: an operator must run `convengine migrate`.',
  TEMPORAL_UNREACHABLE: 'The Temporal server is unreachable; retry later.',
  TEMPORAL_NAMESPACE_MISSING:
    'The Temporal namespace does not exist: an operator must run `convengine setup-temporal`.',
  SEARCH_ATTRIBUTES_MISSING:
    'The Temporal namespace lacks the turn search attributes: an operator must run `convengine setup-temporal`.',
  CONFIG_EMPTY:
    'No config is loaded (no intent, no response): an operator must run `convengine seed` or `convengine config apply`.',
  DEPLOYMENT_MISMATCH:
    "The database belongs to another deployment (Temporal namespace or task queue): an operator must fix this process's " +
    'settings or rebind the database.',
};

/** One dependency's answer; `log` says what is wrong and the fix, once per change (not once per probe). */
export interface CheckOutcome {
  reason: string;
  problem: PrerequisiteProblem | null;
  /** Reported beside a ready check, logged at warn. */
  warning?: string;
  log?: { fields: object; message: string };
}

export const OK: CheckOutcome = { reason: 'ok', problem: null };
