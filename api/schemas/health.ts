import { DATABASE_BUSY_MEANING } from '../../db/connection-loss';

/** GET /healthz and GET /readyz: success responses, as api/schemas/common.ts says they are written. */

export const livenessSchema = {
  type: 'object',
  description: 'The process is up.',
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

/** The same body with 200 (every check "ok", or a database "busy") and with 503. */
export const readinessSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not ready'] },
    checks: {
      type: 'object',
      description:
        "Per dependency (database, temporal, worker; deployment: whether the database is bound to this API's " +
        "Temporal namespace and task queue; under `convengine start` also workerDatabase, the in-process worker's " +
        'own pool): "ok" or what is wrong; only `api: "stopping"` while the API closes. A database (or ' +
        `workerDatabase) "busy" (${DATABASE_BUSY_MEANING}: here the check's, within 2 s) leaves the API ready, ` +
        'with a warning: every replica on the database is as busy, and requests get 503 DATABASE_BUSY. A database ' +
        '"stalled" (its check got no answer within 2 s, and no statement of the pool was answered since the check ' +
        'began) is not ready.',
      additionalProperties: { type: 'string' },
    },
    warnings: {
      type: 'object',
      description:
        'Present when something needs an operator but keeps the process ready, by subject: database (migrated by ' +
        'a newer build, or busy), workerDatabase (busy), config (the current config is refused and a stored snapshot is served), worker (some workers ' +
        "polling are of an older build), clock (this host is off Temporal's clock), search (the console search lacks " +
        'its trigram indexes: `convengine doctor` says why).',
      additionalProperties: { type: 'string' },
    },
  },
} as const;
