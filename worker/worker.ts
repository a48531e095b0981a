import type { DataConverter } from '@temporalio/common';
import {
  NativeConnection,
  Worker,
  type ActivityInterceptorsFactory,
  type NativeConnectionOptions,
  type WorkerOptions,
} from '@temporalio/worker';
import type { GrpcCompression } from '../config/env';
import { unreachable, type TemporalConnectionSettings } from '../config/temporal-connection';
import type { TurnActivities } from '../core/turn/activities';
import { attemptStartInterceptor } from '../activities/runtime/database-outage';
import { failureSealer } from '../activities/runtime/sealed-failure';
import { turnWorkerIdentity } from '../observability/turn-pollers';
import type { WorkflowSource } from './bundle';

export interface TurnWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: TurnActivities;
  /** The claim-check converter (db/claims/codec.ts); the gateway's client must use the same store. */
  dataConverter: DataConverter;
  /** runnableWorkflowSource (worker/bundle-cache.ts) picks it. */
  workflows: WorkflowSource;
  /**
   * With PAYLOAD_ENCRYPTION_KEYS set (withoutFailureText): each activity's failure leaves the worker with its text
   * encrypted and an outline as its message in history (activities/runtime/sealed-failure.ts).
   */
  sealFailureText?: boolean;
  /** Extra Worker options (concurrency limits, identity, …). */
  tuning?: Partial<WorkerOptions>;
}

/**
 * The activity interceptors of a worker that runs turns, or stands in for one to price its round trips (doctor's
 * probe, the bench's chains): the one place they are composed. Each attempt's start is noted on the worker's clock
 * (how long it may wait out a database outage), beside `instrumentation` (observability/worker-options.ts). The sealer
 * (with `sealFailureText`) is outermost: the interceptors inside it log and trace a failure as thrown, by their own rules.
 */
export function turnActivityInterceptors(
  sealFailureText: boolean,
  instrumentation: ActivityInterceptorsFactory[] = []
): ActivityInterceptorsFactory[] {
  return [...(sealFailureText ? [failureSealer] : []), ...instrumentation, attemptStartInterceptor];
}

/** A worker that runs conversation turns: the turn workflow plus every step and tool activity. */
export function createTurnWorker(options: TurnWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: options.activities,
    dataConverter: options.dataConverter,
    ...options.workflows,
    ...options.tuning,
    interceptors: {
      ...options.tuning?.interceptors,
      activity: turnActivityInterceptors(options.sealFailureText === true, options.tuning?.interceptors?.activity),
    },
    // Says which turn type it runs, for the API's readiness (observability/turn-pollers.ts).
    identity: turnWorkerIdentity(options.tuning?.identity),
  });
}

/**
 * After the grace time, the cancelled activities (a model, SQL or HTTP call ends; a step's database statement is cancelled
 * in the server: db/cancellation.ts) and the workflow tasks have this long to end; then the worker stops anyway, and
 * Temporal retries what was cut: a stop is bounded whatever a tool does.
 */
export const SHUTDOWN_FORCE_MARGIN_MS = 10_000;

/**
 * How every turn worker stops (SIGTERM to `convengine worker`, `convengine start`'s stop): it polls no more, and its
 * activities in flight get `graceMs` (WORKER_SHUTDOWN_GRACE_MS) to finish before they are cancelled. The SDK's default
 * grace is 0: each would be cut at once and fail as WORKER_SHUTDOWN, a tool call counted as a tool error and sent again.
 */
export function workerShutdownOptions(graceMs: number): Pick<WorkerOptions, 'shutdownGraceTime' | 'shutdownForceTime'> {
  return { shutdownGraceTime: graceMs, shutdownForceTime: graceMs + SHUTDOWN_FORCE_MARGIN_MS };
}

/**
 * sdk-core gzips every request and asks for gzipped answers unless told otherwise. Between a worker
 * and a server in the same network that buys nothing and costs CPU at both ends: on the real server
 * (CLI v1.5.1) gzip and gunzip were ~5 % of the server's CPU during the turns (perf, docs/benchmarks.md).
 * `TEMPORAL_GRPC_COMPRESSION=gzip` brings it back for a slow or metered link.
 */
export function workerConnectionOptions(
  settings: TemporalConnectionSettings,
  compression: GrpcCompression
): NativeConnectionOptions {
  return {
    address: settings.address,
    grpcCompression: { codec: compression },
    ...(settings.tls ? { tls: settings.tls } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
  };
}

export function connectWorker(
  settings: TemporalConnectionSettings,
  compression: GrpcCompression
): Promise<NativeConnection> {
  return NativeConnection.connect(workerConnectionOptions(settings, compression)).catch((err: unknown) => {
    throw unreachable(settings, err);
  });
}
