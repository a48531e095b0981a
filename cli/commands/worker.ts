import { keepServing, whenStdoutCloses } from '../closed-output';
import { WORKER_METRICS_DEFAULT_PORT, WORKER_SHUTDOWN_GRACE_DEFAULT_MS, type Env } from '../../config/env';
import { isNamespaceNotFound } from '../../config/temporal-client';
import {
  configuredTemporal,
  describeTemporal,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { databaseAddress } from '../../db/address';
import { withoutFailureText } from '../../observability/failure-outline';
import type { Logger } from '../../observability/logger';
import { namespaceMissing } from '../../observability/prerequisite-problems';
import { processTelemetry, warnOnFewOpenFiles } from '../../observability/process';
import { bindWorkerListeners } from '../../worker/listeners';
import { runTurnWorker, type RunningWorker } from '../../worker/main';
import { SHUTDOWN_FORCE_MARGIN_MS } from '../../worker/worker';
import { StoppedBeforeNamespaceError } from '../../worker/namespace-wait';
import { parseCommandArgs, usageError, type CliCommand, type CliIo } from '../command';
import { WORKER_NEEDS, serviceEnvironment } from '../environment';
import { errorChain } from '../error-chain';
import { shownText } from '../../core/text/one-line-text';
import { checkRoundTrip } from '../doctor/temporal';
import { stopWhenNpmEnds } from '../signals';

const OPTIONS = { values: [], flags: ['check', 'fail-without-namespace'], positional: false };

export const workerCommand: CliCommand = {
  needs: WORKER_NEEDS,
  usage: [
    'convengine worker [--check] [--fail-without-namespace]',
    '',
    'Polls TEMPORAL_TASK_QUEUE in TEMPORAL_NAMESPACE on TEMPORAL_ADDRESS and runs the turn workflow and',
    'every step and tool activity. SIGTERM/SIGINT drain in-flight tasks before exiting: activities get',
    `WORKER_SHUTDOWN_GRACE_MS (default ${WORKER_SHUTDOWN_GRACE_DEFAULT_MS}) to finish, then are cancelled and retried elsewhere.`,
    'A namespace that does not exist yet is waited for (logged, /readyz not ready) until',
    '`convengine setup-temporal` creates it; SIGTERM/SIGINT meanwhile exit 0.',
    '--fail-without-namespace exits 1 at once instead. A Temporal it cannot reach at start exits 1.',
    '--check first times one activity round trip on the server (as `convengine doctor` does) and logs the',
    'figure (a warning when it is above 30 ms or the probe failed); the worker starts either way.',
    'Needs DATABASE_URL, TEMPORAL_ADDRESS, and ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL: exits 2 listing every one',
    'unset and every variable that is invalid, in one error.',
    `Serves /metrics, /healthz and /readyz on HOST:WORKER_METRICS_PORT (default ${WORKER_METRICS_DEFAULT_PORT}, or any`,
    'free port when that is taken). A WORKER_METRICS_PORT or TEMPORAL_SDK_METRICS_ADDRESS that is set but taken',
    'exits 1 at start, naming the variable, before the worker connects or polls.',
  ].join('\n'),
  async run(args, io, validated) {
    const parsed = parseCommandArgs('worker', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, workerCommand.usage);
    const check = parsed.options.has('check');
    const env = serviceEnvironment(validated);
    const databaseUrl = env.DATABASE_URL;
    const temporal = configuredTemporal(env);
    const telemetry = processTelemetry(env, 'worker');
    warnOnFewOpenFiles(telemetry.logger);
    whenStdoutCloses(keepServing);
    const stops = stopRequests((line) => telemetry.logger.warn(line));
    const namespaceWait = parsed.options.has('fail-without-namespace') ? undefined : stops.beforeStart;
    const worker = await startWorker(env, databaseUrl, { temporal, logger: telemetry.logger, check, namespaceWait })
      .then(stops.started)
      .catch((err: unknown) => {
        stops.started(null);
        if (err instanceof StoppedBeforeNamespaceError) {
          telemetry.logger.info({ namespace: env.TEMPORAL_NAMESPACE }, err.message);
          return 'stopped' as const;
        }
        // Temporal's own text for a missing namespace is a dump of the server's status; the fix is ours to name, in
        // the log line too. Any other failure's log line, with its stack, is for the log collector; the operator at a
        // terminal gets the reason.
        const missing = isNamespaceNotFound(err);
        const reason = missing ? namespaceMissing(env.TEMPORAL_NAMESPACE) : errorChain(err);
        telemetry.logger.fatal(
          missing ? { namespace: env.TEMPORAL_NAMESPACE, reason } : { err },
          'worker failed to start'
        );
        io.err(`worker failed to start: ${reason}`);
        return null;
      });
    if (worker === 'stopped') return shutDown(telemetry, 0);
    if (!worker) return 1;
    const database = databaseAddress(databaseUrl);
    telemetry.logger.info(
      { taskQueue: env.TEMPORAL_TASK_QUEUE, namespace: env.TEMPORAL_NAMESPACE, database, probe: worker.probeUrl },
      `worker polling ${env.TEMPORAL_TASK_QUEUE} on ${describeTemporal(temporal)} (namespace ${env.TEMPORAL_NAMESPACE}), ` +
        `database ${database}`
    );
    return shutDown(telemetry, await workerEnd(worker, { env, stopAsked: stops.asked, logger: telemetry.logger, io }));
  },
};

/**
 * How a running worker ended: 0 once it stopped; 1, in one line that says why, when its run failed. A run fails on a
 * stop when an activity was still running past WORKER_SHUTDOWN_GRACE_MS and SHUTDOWN_FORCE_MARGIN_MS after it (it did
 * not end on its cancellation): the SDK's own error then ("Worker still in use: …") says nothing an operator can use.
 */
export async function workerEnd(
  worker: RunningWorker,
  how: { env: Env; stopAsked: () => boolean; logger: Logger; io: CliIo }
): Promise<number> {
  const failure = await worker.done.then(
    () => null,
    (err: unknown) => err
  );
  if (failure === null) return 0;
  const stopMs = how.env.WORKER_SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MARGIN_MS;
  const line = how.stopAsked()
    ? `worker stopped by force: an activity was still running ${stopMs} ms after the stop (WORKER_SHUTDOWN_GRACE_MS, ` +
      `then ${SHUTDOWN_FORCE_MARGIN_MS} ms after its cancellation); Temporal retries it once its heartbeat times out`
    : `worker failed: ${errorChain(failure)}`;
  // The log line, with its stack, is for the log collector; the operator at a terminal gets the reason.
  how.logger.error({ err: failure }, line);
  how.io.err(line);
  return 1;
}

async function shutDown(telemetry: { shutdown(): Promise<void> }, code: number): Promise<number> {
  await telemetry.shutdown();
  return code;
}

/**
 * Stops asked for (SIGINT, SIGTERM, npm gone) before the worker runs abort `beforeStart`, which ends a wait for the
 * namespace: the Temporal runtime stops a worker on a signal, but only one that exists. Once `started` is told the
 * worker (or null: it never will run), the runtime has the signals, and npm's end stops that worker as a SIGTERM would.
 */
function stopRequests(say: (line: string) => void) {
  const waiting = new AbortController();
  let running: RunningWorker | null = null;
  let asked = false;
  const onSignal = () => {
    asked = true;
    if (!running) waiting.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  stopWhenNpmEnds(() => {
    asked = true;
    if (running) return running.requestStop();
    if (waiting.signal.aborted) return false;
    waiting.abort();
    return true;
  }, say);
  return {
    beforeStart: waiting.signal,
    started<W extends RunningWorker | null>(worker: W): W {
      running = worker;
      // Once it runs, the runtime stops it on a signal; this only notes that a stop was asked for (workerEnd).
      if (!worker) {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      return worker;
    },
    /** Whether a signal, or npm's end, asked this process to stop. */
    asked: () => asked,
  };
}

/**
 * The worker's listeners first (a taken TEMPORAL_SDK_METRICS_ADDRESS or WORKER_METRICS_PORT fails here, before
 * anything is connected or polled), the optional round-trip check, then the worker.
 */
async function startWorker(
  env: Env,
  databaseUrl: string,
  how: {
    temporal: TemporalConnectionSettings;
    logger: Logger;
    check: boolean;
    namespaceWait: AbortSignal | undefined;
  }
): Promise<RunningWorker> {
  const { temporal, logger } = how;
  const probe = await bindWorkerListeners({
    env,
    logger,
    probe: {
      host: env.HOST,
      port: env.WORKER_METRICS_PORT ?? WORKER_METRICS_DEFAULT_PORT,
      orAnyPort: env.WORKER_METRICS_PORT === undefined,
    },
  });
  try {
    if (how.check) {
      const finding = await checkRoundTrip({
        temporal,
        namespace: env.TEMPORAL_NAMESPACE,
        compression: env.TEMPORAL_GRPC_COMPRESSION,
        workflowBundle: env,
        sealFailureText: withoutFailureText(env),
      });
      // A log record, as every other line the worker writes: its stdout stays one JSON line per event. LOG_FORMAT=pretty
      // prints its message to a terminal as it is: the finding's controls (a server's words) are shown.
      const fields = { check: finding.check, result: finding.level, msPerActivity: finding.msPerActivity };
      const line = `round-trip check ${finding.level}: ${shownText(finding.message)}`;
      logger[finding.level === 'ok' ? 'info' : 'warn'](fields, line);
    }
    return await runTurnWorker({
      env,
      databaseUrl,
      temporal,
      // eslint-disable-next-line no-restricted-properties -- the environment HTTP tool rows read, whole (toolEnv)
      toolEnv: process.env,
      logger,
      bindDeployment: true,
      ...(probe ? { probe } : {}),
      ...(how.namespaceWait ? { namespaceWait: how.namespaceWait } : {}),
    });
  } catch (err) {
    await probe?.close();
    throw err;
  }
}
