import type { Env } from '../config/env';
import { ListenAddressError } from '../observability/listen-address';
import type { Logger } from '../observability/logger';
import { startProbeServer, type ProbeServer, type ProbeServerOptions } from '../observability/probe-server';
import { withoutFailureText } from '../observability/failure-outline';
import { installTemporalRuntime } from '../observability/temporal-runtime';

/**
 * Where the worker serves /metrics, /healthz and /readyz (WORKER_METRICS_PORT on HOST; port 0: any free port).
 * `orAnyPort`: when the port is taken (a second worker on one host with the default port), serve on a free one and
 * log where.
 */
export interface ProbeAddress {
  host: string;
  port: number;
  orAnyPort?: boolean;
}

/** What the worker's /metrics and /readyz answer once it is built (worker/readiness.ts). */
export type ProbeHandlers = Pick<ProbeServerOptions, 'metrics' | 'readiness'>;

/** The worker's probe server, listening from the start of the worker on; its worker's answers are served later. */
export interface WorkerProbe {
  url: string;
  /** From now on /metrics and /readyz are the worker's; until then /metrics is empty and /readyz says `starting`. */
  serve(handlers: ProbeHandlers): void;
  /** Closes it; once, however often it is called (the worker's stop and `convengine start`'s both do). */
  close(): Promise<void>;
}

/** WORKER_METRICS_PORT cannot be listened on (taken, or not this host's HOST): a start failure, before any poll. */
export class WorkerMetricsPortError extends ListenAddressError {
  readonly type = 'WORKER_METRICS_PORT_UNAVAILABLE';
  constructor(address: ProbeAddress, err: unknown) {
    const code = (err as { code?: unknown } | null)?.code;
    const reason = code === 'EADDRINUSE' ? 'address already in use' : err instanceof Error ? err.message : String(err);
    super(
      'WORKER_METRICS_PORT',
      String(address.port),
      `the worker's /metrics, /healthz and /readyz (HOST ${address.host})`,
      reason
    );
    this.name = 'WorkerMetricsPortError';
  }
}

const STARTING: ProbeHandlers = {
  metrics: async () => '',
  readiness: async () => ({ checks: { worker: 'starting' } }),
};

/** Listens on `address` (or, `orAnyPort`, on a free port when it is taken); throws WorkerMetricsPortError. */
export async function bindWorkerProbe(address: ProbeAddress, logger: Logger): Promise<WorkerProbe> {
  let handlers = STARTING;
  const listen = (port: number) =>
    startProbeServer({
      host: address.host,
      port,
      logger,
      metrics: () => handlers.metrics(),
      readiness: () => handlers.readiness(),
    });
  const { port, orAnyPort = false } = address;
  const server = await listen(port).catch((err: unknown): Promise<ProbeServer> => {
    if (!orAnyPort || port === 0 || (err as { code?: string }).code !== 'EADDRINUSE') {
      throw new WorkerMetricsPortError(address, err);
    }
    logger.warn({ port }, `port ${port} is taken: /metrics, /healthz and /readyz go to a free port`);
    return listen(0);
  });
  let closing: Promise<void> | undefined;
  return {
    url: server.url,
    serve: (worker) => void (handlers = worker),
    close: () => (closing ??= server.close()),
  };
}

/**
 * Binds what a worker listens on before it connects anywhere or polls, so that a taken address is a start failure
 * naming its variable (a ListenAddressError), not a worker that polls without its metrics: the SDK's metrics exporter
 * (TEMPORAL_SDK_METRICS_ADDRESS, bound as the SDK's runtime installs) and the worker's probe server
 * (WORKER_METRICS_PORT). `convengine worker` and `convengine start` both start here.
 */
export async function bindWorkerListeners(bind: {
  env: Env;
  logger: Logger;
  probe: ProbeAddress | undefined;
  /** The SDK runtime's own stop signals; `convengine start` stops the worker itself (none). */
  shutdownSignals?: NodeJS.Signals[];
}): Promise<WorkerProbe | null> {
  const { logger, shutdownSignals } = bind;
  installTemporalRuntime({
    logger,
    sdkMetricsAddress: bind.env.TEMPORAL_SDK_METRICS_ADDRESS,
    withoutFailureText: withoutFailureText(bind.env),
    ...(shutdownSignals ? { shutdownSignals } : {}),
  });
  return bind.probe ? bindWorkerProbe(bind.probe, logger) : null;
}
