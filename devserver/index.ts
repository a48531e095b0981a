/**
 * Embedded, wire-compatible Temporal frontend for development and tests: the real
 * `@temporalio/worker` and `@temporalio/client` talk to it over gRPC on loopback.
 */
import * as grpc from '@grpc/grpc-js';
import { Engine, type EngineStats } from './engine/engine';
import type { JournalFs } from './engine/journal-file';
import { PersistentStore, type StoreOptions } from './engine/persistence';
import { deleteExpiredRuns } from './engine/executions';
import { restoreState } from './engine/restore';
import { SEARCH_ATTRIBUTE_TYPES, type SearchAttributeType } from './engine/search-attributes';
import { declineRequestCompression } from './grpc/compression';
import { buildService } from './grpc/service';
import { healthHandlers } from './rpc/health';
import { operatorServiceHandlers } from './rpc/operator-service';
import { systemHandlers } from './rpc/system';
import { workflowServiceHandlers } from './rpc/workflow-service';

export type { SearchAttributeType } from './engine/search-attributes';
export type { EngineStats } from './engine/engine';

export interface DevServerOptions {
  /** 0 picks a free port. Default 7233. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default "default". */
  namespace?: string;
  /** JSON-lines file that keeps every workflow, activity and timer across restarts. In memory when absent. */
  persistPath?: string;
  /** Custom search attributes to register (in addition to the CustomXxxField set `temporal server start-dev` has). */
  searchAttributes?: Record<string, SearchAttributeType>;
  /** Long polls answer empty after this long. Default 55 s, below the SDK's 70 s deadline. */
  longPollTimeoutMs?: number;
  /** Closed runs are deleted this long after they close. Default 24 h (the retention DescribeNamespace reports). */
  retentionMs?: number;
  /**
   * No timer, timeout or retry backoff fires sooner than this after it is set. Default 1000 ms, as
   * on the real server (`history.timerProcessorMaxTimeShift`); 0 fires deadlines exactly.
   */
  minTimerDelayMs?: number;
  /**
   * Updates admitted but not completed per workflow execution; one more is refused with
   * RESOURCE_EXHAUSTED. Default 10, as on the real server (`history.maxInFlightUpdates`).
   */
  maxInFlightUpdates?: number;
  /**
   * `history.workflowIdReuseMinimalInterval` (default 1000 ms, as on the real server): a run that
   * continues as new, or is retried, sooner than this after its own start has the next run's first
   * workflow task held back until the interval has passed. Starting a closed ID again is not
   * throttled (server 1.29 checks start times only with a validation flag that is off by default).
   */
  workflowIdReuseMinimalIntervalMs?: number;
  /**
   * Eager activity execution (`system.enableActivityEagerExecution`): an activity the worker asks to
   * run eagerly comes back in the answer to the workflow task that scheduled it, without a poll.
   * Default true, as the shipped server config (deploy/temporal/) sets it.
   */
  eagerActivityExecution?: boolean;
  /**
   * Eager workflow start (`system.enableEagerWorkflowStart`, true on the real server): a start that asks
   * for it, from a client sharing its connection with a worker, gets the first workflow task in its answer.
   */
  eagerWorkflowStart?: boolean;
  /**
   * Refuse every call without `authorization: Bearer <apiKey>` (UNAUTHENTICATED), as Temporal Cloud
   * refuses a missing or wrong API key. `convengine devserver` takes it from DEVSERVER_API_KEY.
   */
  apiKey?: string;
  /**
   * Unexpected internal errors; the server keeps serving. A journal that cannot be written (a full disk) is reported
   * here once, and the server refuses every call (UNAVAILABLE) until a write succeeds. Default: one line on stderr.
   */
  onInternalError?: (error: unknown) => void;
  /** A torn last line skipped at a restart, a journal written again after failing. Default: one line on stderr. */
  onWarning?: (message: string) => void;
  /** The file system the journal is written through: tests give one whose writes fail, as on a full disk. */
  journalFs?: JournalFs;
}

export interface DevServer {
  /** host:port to give to NativeConnection / Connection. */
  address: string;
  port: number;
  namespace: string;
  /** Counters of events written and shipped to workers. */
  stats(): EngineStats;
  /** Why the journal cannot be written (every call is refused meanwhile), or null. */
  journalFailure(): string | null;
  stop(): Promise<void>;
}

const DEFAULT_LONG_POLL_MS = 55_000;
const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;
const HOUSEKEEPING_INTERVAL_MS = 5_000;
const DEFAULT_MIN_TIMER_DELAY_MS = 1_000;
const DEFAULT_MAX_IN_FLIGHT_UPDATES = 10;
const DEFAULT_WORKFLOW_ID_REUSE_INTERVAL_MS = 1_000;
const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const SHUTDOWN_GRACE_MS = 2_000;

function defaultInternalErrorReporter(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`[convengine devserver] internal error: ${text}\n`);
}

function validateSearchAttributes(searchAttributes: Record<string, SearchAttributeType>): void {
  for (const [name, type] of Object.entries(searchAttributes)) {
    if (!SEARCH_ATTRIBUTE_TYPES.includes(type)) {
      throw new Error(
        `Search attribute ${name}: unknown type "${type}" (use one of ${SEARCH_ATTRIBUTE_TYPES.join(', ')})`
      );
    }
  }
}

function bind(server: grpc.Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port)
    );
  });
}

function defaultWarningReporter(message: string): void {
  process.stderr.write(`[convengine devserver] ${message}\n`);
}

function openStore(
  engine: Engine,
  persistPath: string,
  onError: (error: unknown) => void,
  storeOptions: StoreOptions
): PersistentStore {
  const store = new PersistentStore(persistPath, engine.namespace, onError, storeOptions);
  restoreState(engine, store.load());
  engine.store = store;
  store.compact(engine.runs.values(), engine.searchAttributes.custom);
  return store;
}

function createGrpcServer(
  engine: Engine,
  persistence: string,
  onInternalError: (error: unknown) => void,
  apiKey: string | undefined
): grpc.Server {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
    // Per-call channelz bookkeeping is measurable CPU on the hot path and nothing here reads it.
    'grpc.enable_channelz': 0,
  });
  const serviceOptions = {
    namespace: engine.namespace,
    requireNamespace: (method: string) =>
      !['DescribeNamespace', 'RegisterNamespace', 'ListNamespaces'].includes(method),
    onInternalError: (error: unknown) => onInternalError(error),
    ...(apiKey !== undefined ? { apiKey } : {}),
  };
  const store = engine.store;
  // Health answers NOT_SERVING while the journal fails; every other call is refused then (grpc/service.ts).
  const serving = (): boolean => {
    store?.flush();
    return !store?.failureMessage();
  };
  const journaled = { ...serviceOptions, ...(store ? { commit: () => store.commit() } : {}) };
  const workflowService = buildService(
    'temporal.api.workflowservice.v1.WorkflowService',
    { ...systemHandlers(engine, persistence), ...workflowServiceHandlers(engine) },
    journaled
  );
  // Operator calls may omit the namespace; they then act on the served one.
  const operatorService = buildService(
    'temporal.api.operatorservice.v1.OperatorService',
    operatorServiceHandlers(engine),
    {
      ...journaled,
      requireNamespace: () => false,
    }
  );
  const healthService = buildService('grpc.health.v1.Health', healthHandlers(serving), {
    ...serviceOptions,
    requireNamespace: () => false,
  });
  server.addService(workflowService.definition, workflowService.implementation);
  server.addService(operatorService.definition, operatorService.implementation);
  server.addService(healthService.definition, healthService.implementation);
  return server;
}

/** Periodic housekeeping: compaction of the persistence file and retention of closed runs. */
function startHousekeeping(engine: Engine, store: PersistentStore | undefined): NodeJS.Timeout {
  const timer = setInterval(() => {
    try {
      // A journal that failed is tried again here too, when no call comes to try it; while it fails, a compaction
      // (a whole second copy) would fail too, and be reported every time.
      store?.flush();
      engine.transact(() => deleteExpiredRuns(engine, engine.retentionMs));
      if (store?.needsCompaction() && !store.failureMessage())
        store.compact(engine.runs.values(), engine.searchAttributes.custom);
    } catch (error) {
      engine.reportInternalError(error);
    }
  }, HOUSEKEEPING_INTERVAL_MS);
  timer.unref();
  return timer;
}

export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const onInternalError = options.onInternalError ?? defaultInternalErrorReporter;
  const onWarning = options.onWarning ?? defaultWarningReporter;
  validateSearchAttributes(options.searchAttributes ?? {});
  const maxInFlightUpdates = options.maxInFlightUpdates;
  if (maxInFlightUpdates !== undefined && !(Number.isInteger(maxInFlightUpdates) && maxInFlightUpdates >= 1)) {
    throw new Error(`maxInFlightUpdates must be a whole number of at least 1; got ${maxInFlightUpdates}`);
  }
  declineRequestCompression();
  const engine = new Engine({
    namespace: options.namespace ?? 'default',
    longPollMs: options.longPollTimeoutMs ?? DEFAULT_LONG_POLL_MS,
    retentionMs: options.retentionMs ?? DEFAULT_RETENTION_MS,
    minTimerDelayMs: options.minTimerDelayMs ?? DEFAULT_MIN_TIMER_DELAY_MS,
    maxInFlightUpdates: options.maxInFlightUpdates ?? DEFAULT_MAX_IN_FLIGHT_UPDATES,
    workflowIdReuseMinimalIntervalMs: options.workflowIdReuseMinimalIntervalMs ?? DEFAULT_WORKFLOW_ID_REUSE_INTERVAL_MS,
    eagerActivityExecution: options.eagerActivityExecution,
    eagerWorkflowStart: options.eagerWorkflowStart,
    onInternalError,
  });
  const store = options.persistPath
    ? openStore(engine, options.persistPath, onInternalError, { onWarning, fs: options.journalFs })
    : undefined;
  for (const [name, type] of Object.entries(options.searchAttributes ?? {}))
    engine.searchAttributes.custom.set(name, type);
  store?.recordSearchAttributes(engine.searchAttributes.custom);
  const server = createGrpcServer(engine, store ? 'jsonl' : 'memory', onInternalError, options.apiKey);
  let port: number;
  try {
    port = await bind(server, `${host}:${options.port ?? 7233}`);
  } catch (error) {
    engine.stop();
    store?.flush();
    throw error;
  }
  const housekeeping = startHousekeeping(engine, store);
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopped ??= new Promise<void>((resolve) => {
      clearInterval(housekeeping);
      engine.stop();
      store?.flush();
      // Long polls were answered by engine.stop(); anything still open after the grace period is cut.
      const force = setTimeout(() => server.forceShutdown(), SHUTDOWN_GRACE_MS);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    return stopped;
  };
  return {
    address: `${host}:${port}`,
    port,
    namespace: engine.namespace,
    stats: () => ({ ...engine.stats }),
    journalFailure: () => store?.failureMessage() ?? null,
    stop,
  };
}
