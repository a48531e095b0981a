/**
 * The environment's defaults, value lists and bounds, which config/env-schema.ts validates the variables against and
 * config/env.ts re-exports: kept apart so that env-schema.ts reads as the list of variables.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const LOG_FORMATS = ['json', 'pretty'] as const;
export const GRPC_COMPRESSIONS = ['none', 'gzip'] as const;
/** `embedded`: our dev server; `cli`: the real server from `npm run temporal:install`; `auto`: the real one when installed. */
export const TEMPORAL_MODES = ['embedded', 'cli', 'auto'] as const;

/** LLM_REPLY_MAX_BYTES's default: far above any answer within LLM_MAX_TOKENS; a longer reply is bad output. */
export const LLM_REPLY_DEFAULT_MAX_BYTES = 256 * 1024;
/** 16 KiB of inputParams JSON per turn: far above any seed's, far below what the audit trail should copy ~60 times. */
export const INPUT_PARAMS_DEFAULT_MAX_BYTES = 16 * 1024;
/** LLM_TIMEOUT_MS's default: one try of a model call. */
export const LLM_TIMEOUT_DEFAULT_MS = 60_000;
/** TURN_REPLY_TIMEOUT_MS's default; the test and bench stacks wait as long. */
export const TURN_REPLY_TIMEOUT_DEFAULT_MS = 60_000;
/** OPERATOR_DECISION_TIMEOUT_MS's default: a live worker takes a decision in milliseconds; 10 s without one means none is there. */
export const OPERATOR_DECISION_TIMEOUT_DEFAULT_MS = 10_000;
/** TEMPORAL_CALL_TIMEOUT_MS's default: a reachable server answers a start, describe or list in milliseconds. */
export const TEMPORAL_CALL_TIMEOUT_DEFAULT_MS = 5_000;

/**
 * GET /api/v1/whatif's bounds (api/routes/whatif.ts says why there are any) when WHATIF_CONCURRENCY and
 * WHATIF_MAX_TURNS are unset, and buildApi's when it is given none.
 */
export const WHATIF_DEFAULT_LIMITS = { concurrency: 2, maxTurns: 200 } as const;

/** STREAM_MAX_CONNECTIONS's default, and buildApi's when it is given none. */
export const STREAM_MAX_CONNECTIONS_DEFAULT = 100;

/**
 * The worker's /metrics port when WORKER_METRICS_PORT is unset: `convengine worker` takes it, or any free port when it
 * is taken (an explicit port must be free).
 */
export const WORKER_METRICS_DEFAULT_PORT = 9464;

/**
 * API_SHUTDOWN_DELAY_MS's default: a Kubernetes endpoint's removal reaches the load balancers (kube-proxy, an
 * ingress) 1–5 s after the pod's SIGTERM, and they send new connections to it until then.
 */
export const API_SHUTDOWN_DELAY_DEFAULT_MS = 5_000;

/**
 * The database pools' sizes when API_DB_POOL_MAX, WORKER_DB_POOL_MAX and WORKER_TOOLS_POOL_MAX are unset, and the
 * most any may be: far past PostgreSQL's default max_connections (100), which every process's pools share.
 */
export const POOL_MAX_DEFAULTS = { api: 10, worker: 20, tools: 5 } as const;
export const POOL_MAX_CEILING = 1_000;

/**
 * API_DB_QUERY_TIMEOUT_MS's default: far past any statement an API route runs (the console search stops its own at
 * 5 s), short of a load balancer's or a client's own timeout, so a stalled connection answers 503 before they give up.
 */
export const API_DB_QUERY_TIMEOUT_DEFAULT_MS = 30_000;

/** The API's port when PORT is unset; `convengine demo` looks for an API there too. */
export const API_DEFAULT_PORT = 3000;

/**
 * WORKER_SHUTDOWN_GRACE_MS's default: a tool call or a database step in flight ends well within it; a model call may
 * not, and is then cancelled and retried on another worker (worker/worker.ts, workerShutdownOptions).
 */
export const WORKER_SHUTDOWN_GRACE_DEFAULT_MS = 5_000;

/**
 * WORKER_DB_LOCK_TIMEOUT_MS's default: a step's statement waits on a row lock only while another commit of the same
 * row ends (milliseconds); 10 s means something else holds it, and the attempt fails and is retried instead.
 */
export const WORKER_DB_LOCK_TIMEOUT_DEFAULT_MS = 10_000;

/**
 * WORKER_DB_QUERY_TIMEOUT_MS's default. Past every statement the worker's engine pool runs in earnest: a step's reads,
 * its audit batch and its commit answer in milliseconds, and a statement waiting on a lock ends at
 * WORKER_DB_LOCK_TIMEOUT_MS (10 s), with 20 s to spare for a loaded server. Far short of a model-led step run's
 * start-to-close (core/turn/steps.ts, MODEL_TIMEOUT_MS, 240 s), which alone ended a statement on a frozen backend
 * before: the step is retried on a fresh connection within its attempt's time, and a stopping worker is not held.
 */
export const WORKER_DB_QUERY_TIMEOUT_DEFAULT_MS = 30_000;

/**
 * MIGRATE_LOCK_WAIT_MS's default: a migrator waits this long for another's migrations (an index built concurrently on
 * a large table takes minutes), then fails saying who holds the lock.
 */
export const MIGRATE_LOCK_WAIT_DEFAULT_MS = 600_000;

/**
 * DEVSERVER_RETENTION_MS's default: a day, the retention a real server's namespace starts with and the dev
 * server's own default (devserver/index.ts).
 */
export const DEVSERVER_RETENTION_DEFAULT_MS = 24 * 60 * 60 * 1000;

/**
 * TEMPORAL_CLI_READY_TIMEOUT_MS's default: start-dev serves in a few seconds on an empty SQLite file, longer on a large
 * one or a loaded machine.
 */
export const TEMPORAL_CLI_READY_TIMEOUT_DEFAULT_MS = 60_000;

/** 32 KiB: a turn's ordinary step payloads stay inline; tool results past it become claim checks. */
export const CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES = 32 * 1024;

/**
 * TEMPORAL_TASK_QUEUE's default. A deployment on it derives a keyed first message's conversation id as every build
 * before task-queue scoping did (api/turns/turn-id.ts, conversationIdForKey).
 */
export const TEMPORAL_TASK_QUEUE_DEFAULT = 'convengine-turns';
