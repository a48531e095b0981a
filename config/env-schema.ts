import { INT32_MAX } from '../core/int32';
import { LLM_TIMEOUT_MAX_MS } from '../core/turn/steps';
import { z } from 'zod';
import { payloadEncryptionKeys } from './payload-keys';
import {
  blankAsUnset,
  httpUrl,
  integer,
  lowercased,
  oneOf,
  optionalHostPort,
  PORT_MAX,
  optionalInteger,
  optionalText,
  postgresUrl,
  secretPostgresUrl,
  secretBlankAsUnset,
  secretWhenSet,
} from './env-values';
import {
  LOG_LEVELS,
  LOG_FORMATS,
  GRPC_COMPRESSIONS,
  TEMPORAL_MODES,
  LLM_REPLY_DEFAULT_MAX_BYTES,
  INPUT_PARAMS_DEFAULT_MAX_BYTES,
  LLM_TIMEOUT_DEFAULT_MS,
  TURN_REPLY_TIMEOUT_DEFAULT_MS,
  OPERATOR_DECISION_TIMEOUT_DEFAULT_MS,
  TEMPORAL_CALL_TIMEOUT_DEFAULT_MS,
  WHATIF_DEFAULT_LIMITS,
  STREAM_MAX_CONNECTIONS_DEFAULT,
  API_SHUTDOWN_DELAY_DEFAULT_MS,
  POOL_MAX_DEFAULTS,
  API_DB_QUERY_TIMEOUT_DEFAULT_MS,
  POOL_MAX_CEILING,
  API_DEFAULT_PORT,
  WORKER_SHUTDOWN_GRACE_DEFAULT_MS,
  WORKER_DB_LOCK_TIMEOUT_DEFAULT_MS,
  WORKER_DB_QUERY_TIMEOUT_DEFAULT_MS,
  MIGRATE_LOCK_WAIT_DEFAULT_MS,
  DEVSERVER_RETENTION_DEFAULT_MS,
  TEMPORAL_CLI_READY_TIMEOUT_DEFAULT_MS,
  CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES,
  TEMPORAL_TASK_QUEUE_DEFAULT,
} from './env-defaults';

/**
 * Every variable the engine reads, each with its form, default and bounds (config/env-values.ts); loadEnv
 * (config/env.ts) parses the process environment with it. Several (DATABASE_URL, ANTHROPIC_API_KEY, API_TOKEN,
 * OPERATOR_API_TOKEN, TEMPORAL_API_KEY, DEVSERVER_API_KEY) carry secrets. A blank value is unset, but for a secret or a
 * protection (secretWhenSet), where it is an error, as are blanks around one. The order is the order in which an
 * invalid environment's variables are listed.
 */
export const envSchema = z.object({
  DATABASE_URL: postgresUrl,
  TOOLS_DATABASE_URL: secretPostgresUrl("convengine_tools_ro_<database> on DATABASE_URL's server"),
  TEMPORAL_ADDRESS: optionalHostPort,
  TEMPORAL_NAMESPACE: z.preprocess(blankAsUnset, z.string().default('default')),
  TEMPORAL_TASK_QUEUE: z.preprocess(blankAsUnset, z.string().default(TEMPORAL_TASK_QUEUE_DEFAULT)),
  /** Which Temporal `convengine start` runs when TEMPORAL_ADDRESS is unset (see cli/stack/temporal-part.ts). */
  CONVENGINE_TEMPORAL: z.preprocess(blankAsUnset, oneOf(TEMPORAL_MODES).default('auto')),
  ANTHROPIC_API_KEY: secretBlankAsUnset,
  ANTHROPIC_BASE_URL: httpUrl,
  ANTHROPIC_MODEL: z.preprocess(blankAsUnset, z.string().default('claude-sonnet-4-6')),
  LLM_TIMEOUT_MS: integer(LLM_TIMEOUT_DEFAULT_MS, 1, LLM_TIMEOUT_MAX_MS),
  LLM_MAX_TOKENS: integer(1024, 1),
  LLM_REPLY_MAX_BYTES: integer(LLM_REPLY_DEFAULT_MAX_BYTES, 1024),
  PORT: integer(API_DEFAULT_PORT, 0, PORT_MAX),
  /** Interface the API listens on; containers set 0.0.0.0. */
  HOST: z.preprocess(blankAsUnset, z.string().default('127.0.0.1')),
  API_TOKEN: secretWhenSet('every route is served without a token'),
  /** The operator routes' own token (config/api-tokens.ts); needs API_TOKEN, and another value. */
  OPERATOR_API_TOKEN: secretWhenSet('the operator routes take API_TOKEN'),
  /** The Temporal Web UI (compose); the turn console links every turn to its workflow there. */
  TEMPORAL_UI_URL: httpUrl,
  MESSAGE_MAX_BYTES: integer(8192, 1),
  /**
   * How long POST /conversation/message (and an approval or retry) waits for the turn's answer. Past it the API
   * describes the turn (within TEMPORAL_CALL_TIMEOUT_MS: a frozen server fails no waiting call) and the caller gets
   * 202 with outcome RUNNING, at most this plus TEMPORAL_CALL_TIMEOUT_MS after its request; the turn goes on (a tool in
   * a long retry backoff, a slow model), and the answer comes on the audit stream and GET /conversation/{id}. At least
   * a second, since a shorter wait loses the race with a turn's own round trip even when its answer is there; at most
   * what a timer takes (~24.8 days).
   */
  TURN_REPLY_TIMEOUT_MS: integer(TURN_REPLY_TIMEOUT_DEFAULT_MS, 1_000, INT32_MAX),
  /**
   * How long an operator's decision (an approval, a held call's retry, skip, fail or markDone; from the API, the
   * console or `convengine sre`) waits for the turn's worker to take it. Past it the caller gets 503
   * WORKER_UNAVAILABLE (the CLI exits 1): the decision was sent and Temporal keeps it, so it may still be applied
   * when a worker returns (Temporal cannot withdraw it). The decision's Temporal calls before it is sent (the turn's
   * describe, its task queue's pollers, its history) share this one deadline with that wait: a decision whose checks
   * outlive it is not sent (503 TEMPORAL_UNREACHABLE, decisionSent false), and its calls still running then are
   * cancelled. An approval the turn took then waits for the turn's answer as a message does (TURN_REPLY_TIMEOUT_MS,
   * then 202 RUNNING): the decision's deadline bounds its being taken, not the turn's work after it, which a slow
   * model or tool makes as long as a message's. At least a second, at most ten minutes.
   */
  OPERATOR_DECISION_TIMEOUT_MS: integer(OPERATOR_DECISION_TIMEOUT_DEFAULT_MS, 1_000, 600_000),
  /**
   * How long the API waits for one call to Temporal (a turn's start, a describe, a list, a signal) before it answers
   * 503 TEMPORAL_UNREACHABLE: a server that accepts connections and does not answer (stopped, overloaded, a host
   * dropping packets) otherwise holds each request about 30 s and then fails it. Waits for a turn's answer are not
   * calls (TURN_REPLY_TIMEOUT_MS, OPERATOR_DECISION_TIMEOUT_MS bound them). 100 ms to a minute.
   */
  TEMPORAL_CALL_TIMEOUT_MS: integer(TEMPORAL_CALL_TIMEOUT_DEFAULT_MS, 100, 60_000),
  /**
   * A turn's inputParams, as JSON. They are part of the turn's session, which every `_meta` audit row
   * carries (AuditService.PERSIST_META): ~60 rows a turn, so a 700 KB object once wrote ~120 MB.
   */
  INPUT_PARAMS_MAX_BYTES: integer(INPUT_PARAMS_DEFAULT_MAX_BYTES, 2),
  /**
   * How long `convengine api`, on SIGTERM, answers /readyz 503 while it serves every request as before (new
   * connections included), before it closes: load balancers stop sending to it meanwhile. SIGINT (a Ctrl-C) and
   * `convengine start` close at once. At most ten minutes.
   */
  API_SHUTDOWN_DELAY_MS: integer(API_SHUTDOWN_DELAY_DEFAULT_MS, 0, 600_000),
  /**
   * POST /conversation/message requests answered at once in one API process; one more gets 503 TOO_MANY_MESSAGES with
   * Retry-After. Unset: from the open-files limit (config/open-files.ts), as each holds a socket. Below
   * API_MAX_CONNECTIONS when both are set (config/api-limits.ts).
   */
  MESSAGE_MAX_CONCURRENT: optionalInteger(1, 100_000),
  /**
   * HTTP connections one API process holds at once; one more is closed as it is accepted, before it reads a byte.
   * Unset: the open-files limit less what the pools and the rest of the process hold (config/open-files.ts), so a
   * burst of clients meets a closed connection rather than a process out of file descriptors (EMFILE).
   */
  API_MAX_CONNECTIONS: optionalInteger(1, 1_000_000),
  /** Connections of the API's database pool (a statement waits for a free one up to 10 s, then 503 DATABASE_BUSY). */
  API_DB_POOL_MAX: integer(POOL_MAX_DEFAULTS.api, 1, POOL_MAX_CEILING),
  /**
   * How long one statement of the API's pool waits for the server's answer before it fails (503 DATABASE_BUSY or
   * DATABASE_UNREACHABLE) and its connection is closed: a stalled backend must not hold a request, its concurrency
   * slot and a pooled connection forever. 0: no bound. At most ten minutes.
   */
  API_DB_QUERY_TIMEOUT_MS: integer(API_DB_QUERY_TIMEOUT_DEFAULT_MS, 0, 600_000),
  /** Connections of the worker's engine pool (its steps' statements, the claim checks, the config store). */
  WORKER_DB_POOL_MAX: integer(POOL_MAX_DEFAULTS.worker, 1, POOL_MAX_CEILING),
  /** Connections of the worker's pool for SQL tools, logged in as the tools role (TOOLS_DATABASE_URL). */
  WORKER_TOOLS_POOL_MAX: integer(POOL_MAX_DEFAULTS.tools, 1, POOL_MAX_CEILING),
  /** Audit streams (SSE) open at once in one API process; more get 429. Each polls the database 4 times a second. */
  STREAM_MAX_CONNECTIONS: integer(STREAM_MAX_CONNECTIONS_DEFAULT, 1, 100_000),
  /** GET /api/v1/whatif replays in the API process: at most this many at once (more get 429), ... */
  WHATIF_CONCURRENCY: integer(WHATIF_DEFAULT_LIMITS.concurrency, 1, 64),
  /** ... each of a conversation with at most this many recorded turns (longer: 422; the CLI has no bound). */
  WHATIF_MAX_TURNS: integer(WHATIF_DEFAULT_LIMITS.maxTurns, 1),
  /** Payloads at least this large are stored in ce_payload_claim; history keeps a reference (db/claims/). */
  CLAIM_CHECK_THRESHOLD_BYTES: integer(CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES, 1024),
  /**
   * `keyId:base64key[,…]`: every payload the engine sends to Temporal is encrypted (AES-256-GCM) under the first key,
   * and any listed key decrypts (config/payload-keys.ts; docs/security.md). Unset: payloads are stored as they are.
   */
  PAYLOAD_ENCRYPTION_KEYS: payloadEncryptionKeys,
  LOG_LEVEL: z.preprocess(lowercased, oneOf(LOG_LEVELS).default('info')),
  /** `json`: one JSON line per event; `pretty`: readable lines. Unset: json, except `convengine start` (pretty). */
  LOG_FORMAT: z.preprocess(lowercased, oneOf(LOG_FORMATS).optional()),
  /** OTLP/HTTP collector base URL (spans go to `<url>/v1/traces`); unset: no tracing at all. */
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl,
  OTEL_SERVICE_NAME: z.preprocess(blankAsUnset, z.string().default('convengine')),
  /** Port of the worker's /metrics, /healthz and /readyz (`convengine worker`; `start` only when set). */
  WORKER_METRICS_PORT: optionalInteger(0, PORT_MAX),
  /**
   * How long a stopping worker (SIGTERM, `convengine start`'s stop) lets its activities in flight finish before it
   * cancels them; at most ten minutes (a model step's attempt is 240 s).
   */
  WORKER_SHUTDOWN_GRACE_MS: integer(WORKER_SHUTDOWN_GRACE_DEFAULT_MS, 0, 600_000),
  /**
   * The lock_timeout of the worker's engine connections (its steps' statements): how long one waits on a lock before it
   * fails (retried by the step's policy); 0 waits as long as the server lets it. At most ten minutes.
   */
  WORKER_DB_LOCK_TIMEOUT_MS: integer(WORKER_DB_LOCK_TIMEOUT_DEFAULT_MS, 0, 600_000),
  /**
   * How long one statement of the worker's engine pool waits for the server's answer before it fails and its connection
   * is closed (a frozen backend held the step until its start-to-close, 240 s for a model-led run, and a stopping
   * worker with it): the attempt fails retryable and the step is retried on a fresh connection. 0: no bound. At most
   * ten minutes.
   */
  WORKER_DB_QUERY_TIMEOUT_MS: integer(WORKER_DB_QUERY_TIMEOUT_DEFAULT_MS, 0, 600_000),
  /**
   * How long `migrate` (and `convengine start`'s) waits for another migrator's lock before failing with who holds it;
   * at most a day.
   */
  MIGRATE_LOCK_WAIT_MS: integer(MIGRATE_LOCK_WAIT_DEFAULT_MS, 1_000, 86_400_000),
  /** host:port for the Temporal SDK's own Prometheus exporter; the worker's /metrics appends its metrics. */
  TEMPORAL_SDK_METRICS_ADDRESS: optionalHostPort,
  /** gRPC compression of the worker's calls to Temporal (worker/worker.ts says why the default is none). */
  TEMPORAL_GRPC_COMPRESSION: z.preprocess(lowercased, oneOf(GRPC_COMPRESSIONS).default('none')),
  /**
   * TLS to TEMPORAL_ADDRESS (config/temporal-connection.ts). Unset: on when any TEMPORAL_TLS_* path or
   * TEMPORAL_API_KEY is set, as in the Temporal CLI. Names as the Temporal CLI's environment config.
   */
  TEMPORAL_TLS: z.preprocess(
    lowercased,
    oneOf(['true', 'false'])
      .transform((v) => v === 'true')
      .optional()
  ),
  TEMPORAL_TLS_CLIENT_CERT_PATH: secretWhenSet('no client certificate'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: secretWhenSet('no client certificate'),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: secretWhenSet("the system's root CAs"),
  TEMPORAL_TLS_SERVER_NAME: secretWhenSet("the address's host"),
  /** Temporal Cloud API key (or any server's bearer token); only ever sent over TLS. */
  TEMPORAL_API_KEY: secretWhenSet('no API key is sent'),
  /** `production`: workers run the pre-built workflow bundle in dist/ when there is one (worker/bundle.ts). */
  NODE_ENV: optionalText,
  /** A pre-built workflow bundle every worker runs, of whichever variant (worker/bundle.ts). */
  CONVENGINE_WORKFLOW_BUNDLE: optionalText,
  /** `convengine devserver` refuses every call without `authorization: Bearer <key>`. */
  DEVSERVER_API_KEY: secretWhenSet('the dev server takes every call'),
  /**
   * How long `convengine start`'s embedded dev server keeps a closed turn's workflow (~91 KiB of memory and ~94 KiB
   * of journal per seed-conversation turn: docs/devserver.md). At least a minute: the API, the console and `convengine history` read a
   * turn's workflow after it ends, and a run past retention is gone for them, as on a real server. The real server
   * `start` runs (--temporal=cli) gets it as its namespace's retention, an hour at least (its minimum; `start` warns).
   */
  DEVSERVER_RETENTION_MS: integer(DEVSERVER_RETENTION_DEFAULT_MS, 60_000),
  /**
   * How long `convengine start --temporal=cli` waits for the real server it runs to serve before it gives up (and
   * prints the server's output): a large temporal.sqlite, or one a killed server left, can take longer to open.
   */
  TEMPORAL_CLI_READY_TIMEOUT_MS: integer(TEMPORAL_CLI_READY_TIMEOUT_DEFAULT_MS, 1_000, 600_000),
  /**
   * The tool server the seed packs' HTTP tools call (`{{env.CONVENGINE_TOOL_DEMO_URL}}`). Unset: `convengine start`
   * runs the demo one. Tool rows read it from their own environment (toolEnv); it is here to be checked at start.
   */
  CONVENGINE_TOOL_DEMO_URL: httpUrl,
  /**
   * The key the seed packs' HTTP tools send to CONVENGINE_TOOL_DEMO_URL (`auth_secret_env`); without it each of their
   * calls fails (a worker warns at start). Read by tool rows like the URL; `convengine demo-tools` expects it.
   */
  CONVENGINE_TOOL_DEMO_API_KEY: optionalText,
});
