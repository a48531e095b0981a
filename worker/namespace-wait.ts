import { setTimeout as sleep } from 'node:timers/promises';
import { NamespaceNotFoundError } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { isNamespaceNotFound, isTemporalUnreachable } from '../config/temporal-client';
import { temporalCheck } from '../observability/dependency-checks';
import type { Logger } from '../observability/logger';
import { namespaceMissing } from '../observability/prerequisite-problems';
import type { WorkerState } from './readiness';
import type { TurnWorkerRun, WorkerObservability } from './turn-worker-run';

/** What /readyz's `worker` check says while the worker waits for its namespace. */
export const WAITING_FOR_NAMESPACE = 'waiting for the namespace';

/** runTurnWorker's stop, asked for while it waited for its namespace: no task ran, so there is nothing to drain. */
export class StoppedBeforeNamespaceError extends Error {
  constructor(readonly namespace: string) {
    super(`stopped while waiting for namespace ${namespace} to exist`);
    this.name = 'StoppedBeforeNamespaceError';
  }
}

export interface NamespaceWait {
  namespace: string;
  /** True when the namespace exists, false when the server says it does not; any other failure is thrown. */
  exists(): Promise<boolean>;
  /** Aborted: stop waiting (SIGTERM, SIGINT). */
  stop: AbortSignal;
  logger: Logger;
  /** The first pause between two checks; each next one doubles, up to `maxPauseMs`. */
  firstPauseMs?: number;
  maxPauseMs?: number;
  /** How often the wait is logged again while it lasts. */
  remindEveryMs?: number;
  /** Called once, when the namespace is first found missing. */
  onMissing?(): void;
}

/**
 * Whether the namespace exists, asked of the server within the check deadline (a Temporal that does not answer is
 * thrown as unreachable, which the wait rides out).
 */
export function namespaceExists(connection: NativeConnection, namespace: string): () => Promise<boolean> {
  const describe = () => connection.workflowService.describeNamespace({ namespace });
  return () =>
    temporalCheck(connection, describe).then(
      () => true,
      (err: unknown) => {
        if (isNamespaceNotFound(err)) return false;
        throw err;
      }
    );
}

/** Sleeps `ms`; false when `stop` aborted meanwhile (or before). */
async function paused(ms: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return false;
  return sleep(ms, true, { signal: stop, ref: true }).catch(() => false);
}

/**
 * Waits until the namespace exists (`convengine setup-temporal` ran, perhaps started beside this worker by an
 * orchestrator), checking with a backoff: a worker cannot be built without it, and an exit would put the process in a
 * restart loop whose back-off only delays the start once it exists. Says so at once, at error, with the fix, and again
 * at warn while it lasts; a Temporal that stops answering meanwhile is waited for too. True once it exists, false when
 * `stop` aborted first.
 */
export async function untilNamespaceExists(wait: NamespaceWait): Promise<boolean> {
  const { namespace, logger, stop } = wait;
  const maxPauseMs = wait.maxPauseMs ?? 10_000;
  const remindEveryMs = wait.remindEveryMs ?? 60_000;
  const started = Date.now();
  let saidAt: number | null = null;
  let unreachableSaid = false;
  for (let pause = wait.firstPauseMs ?? 500; !stop.aborted; pause = Math.min(maxPauseMs, pause * 2)) {
    try {
      const exists = await wait.exists();
      unreachableSaid = false;
      if (exists) {
        if (saidAt !== null) logger.info({ namespace }, `namespace ${namespace} exists now: the worker starts`);
        return true;
      }
      if (saidAt === null) {
        logger.error({ namespace }, `${namespaceMissing(namespace)}; waiting for it (not ready until then)`);
        saidAt = Date.now();
        wait.onMissing?.();
      } else if (Date.now() - saidAt >= remindEveryMs) {
        const waited = Math.round((Date.now() - started) / 1000);
        logger.warn({ namespace, waitedSeconds: waited }, `still waiting: ${namespaceMissing(namespace)}`);
        saidAt = Date.now();
      }
    } catch (err) {
      if (!isTemporalUnreachable(err)) throw err;
      if (!unreachableSaid)
        logger.warn({ err, namespace }, `cannot check namespace ${namespace}: Temporal does not answer`);
      unreachableSaid = true;
    }
    if (!(await paused(pause, stop))) break;
  }
  return false;
}

/**
 * With `run.namespaceWait`, waits until the namespace exists; rejects when the wait is stopped first. While it
 * waits, /readyz's `worker` check says so and convengine_worker_namespace_waiting is 1. Without it, a missing
 * namespace rejects at once with NamespaceNotFoundError.
 */
export async function startWhenNamespaceExists(
  run: TurnWorkerRun,
  connection: NativeConnection,
  state: WorkerState,
  { logger, metrics }: WorkerObservability
): Promise<void> {
  const namespace = run.env.TEMPORAL_NAMESPACE;
  if (!run.namespaceWait) {
    // Asked before the worker is built: the SDK's core, once a worker exists, logs its own raw gRPC status dump
    // ("Status { code: NotFound, … details: b\"…\" }") for the missing namespace before the start fails.
    if (!(await namespaceExists(connection, namespace)())) throw new NamespaceNotFoundError(namespace);
    return;
  }
  const exists = await untilNamespaceExists({
    namespace,
    exists: namespaceExists(connection, namespace),
    stop: run.namespaceWait,
    logger,
    onMissing: () => {
      state.starting = WAITING_FOR_NAMESPACE;
      metrics.namespaceWaiting.set(1);
    },
  }).finally(() => metrics.namespaceWaiting.set(0));
  if (!exists) throw new StoppedBeforeNamespaceError(namespace);
  state.starting = 'starting';
}
