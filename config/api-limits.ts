import { connectionCapFor, messageConcurrencyFor, openFilesLimit } from './open-files';

/**
 * The two bounds of an API process's intake (docs/operations.md, "File descriptors"): API_MAX_CONNECTIONS closes a
 * connection past it as it is accepted, unanswered; MESSAGE_MAX_CONCURRENT answers a message past it 503
 * TOO_MANY_MESSAGES with Retry-After. Node answers one request at a time per connection, so a message past
 * MESSAGE_MAX_CONCURRENT needs a connection beyond those the messages in flight hold: with API_MAX_CONNECTIONS at or
 * below it, that message never arrives, its client meets a closed connection instead of the 503 that says when to
 * retry, and the console, the audit streams and the probes get no connection either.
 */
export interface ApiLimitSettings {
  API_MAX_CONNECTIONS?: number | undefined;
  MESSAGE_MAX_CONCURRENT?: number | undefined;
  API_DB_POOL_MAX: number;
  WORKER_DB_POOL_MAX: number;
  WORKER_TOOLS_POOL_MAX: number;
}

/** Both set, the message limit unreachable: a contradiction, refused at start as the TLS and token ones are. */
export function apiLimitIssues(env: Partial<ApiLimitSettings>): { variable: string; reason: string }[] {
  const connections = env.API_MAX_CONNECTIONS;
  const messages = env.MESSAGE_MAX_CONCURRENT;
  if (connections === undefined || messages === undefined || messages < connections) return [];
  const reason =
    'is not below API_MAX_CONNECTIONS, so it is never reached: a message past it would need a connection that ' +
    'API_MAX_CONNECTIONS closes unanswered, not 503 TOO_MANY_MESSAGES; set it below API_MAX_CONNECTIONS, with room ' +
    'for the console, audit streams and probes';
  return [{ variable: 'MESSAGE_MAX_CONCURRENT', reason }];
}

export interface ApiIntakeLimits {
  /** POST /conversation/message requests answered at once. */
  messageMaxConcurrent: number;
  /** HTTP connections held at once; undefined: no bound. */
  maxConnections: number | undefined;
}

/**
 * An API process's limits: the variables, else from the open-files `limit` (config/open-files.ts); the connections
 * less the process's pools, the worker's too when one runs in it (`convengine start`).
 */
export function apiIntakeLimits(env: ApiLimitSettings, withWorker: boolean, limit = openFilesLimit()): ApiIntakeLimits {
  const pooled = env.API_DB_POOL_MAX + (withWorker ? env.WORKER_DB_POOL_MAX + env.WORKER_TOOLS_POOL_MAX : 0);
  return {
    messageMaxConcurrent: env.MESSAGE_MAX_CONCURRENT ?? messageConcurrencyFor(limit),
    maxConnections: env.API_MAX_CONNECTIONS ?? connectionCapFor(limit, pooled) ?? undefined,
  };
}

/**
 * The warning of limits where one comes from the open-files limit and the message limit is unreachable (both set so
 * is refused: apiLimitIssues); null when it is reachable.
 */
export function unreachableMessageLimitWarning(env: Partial<ApiLimitSettings>, limits: ApiIntakeLimits): string | null {
  const { maxConnections, messageMaxConcurrent } = limits;
  if (maxConnections === undefined || messageMaxConcurrent < maxConnections) return null;
  const from = (variable: keyof ApiLimitSettings) =>
    env[variable] === undefined ? `${variable} unset: from the open-files limit` : variable;
  return (
    `this API holds at most ${maxConnections} connections (${from('API_MAX_CONNECTIONS')}), not more than the ` +
    `${messageMaxConcurrent} messages it answers at once (${from('MESSAGE_MAX_CONCURRENT')}): a message past those ` +
    'never gets a connection, so it is never answered 503 TOO_MANY_MESSAGES with Retry-After (its client meets a ' +
    'closed connection), and the console, audit streams and probes get none either; set MESSAGE_MAX_CONCURRENT ' +
    'below API_MAX_CONNECTIONS (docs/operations.md "File descriptors")'
  );
}
