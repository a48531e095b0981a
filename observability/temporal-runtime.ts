import type { LogLevel, LogMetadata, Logger as TemporalLogger } from '@temporalio/common';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { failureOutline } from './failure-outline';
import { ListenAddressError } from './listen-address';
import type { Logger } from './logger';

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * The SDK's line for each failed activity attempt. Every activity of our workers runs inside the step
 * observer (observability/activity-interceptor.ts), whose `step failed` line says the same with the
 * turn's fields and the step that failed, so the SDK's is debug: one failure, one line.
 */
const SDK_ACTIVITY_FAILED = 'Activity failed';

function levelOf(level: LogLevel, message: string, fields: LogMetadata): LogLevel {
  const activityFailed = message === SDK_ACTIVITY_FAILED && fields['sdkComponent'] === 'worker';
  return activityFailed && level === 'WARN' ? 'DEBUG' : level;
}

/**
 * The fields in which core's native lines print a failure, as Rust's debug text of its proto: "Failing workflow task"
 * (a workflow's own error, whose message may quote what a user wrote), "Failing legacy query request", "Failing
 * workflow due to nondeterminism error" (`failure`), and a history page's events (`current_events`).
 */
const CORE_FAILURE_FIELDS = ['failure', 'current_events'];

/** A string field of Rust's debug text that holds a failure's text, with its value (escapes included). */
const CORE_FAILURE_TEXT = /\b(message|stack_trace): "(?:[^"\\]|\\.)*"/g;

/**
 * failureOutline for core's lines: the failure's debug text keeps its structure (source, failure info, cause chain)
 * and every message and stack trace in it reads `[withheld]`.
 */
function withoutCoreFailureText(fields: LogMetadata): LogMetadata {
  if (fields['sdkComponent'] !== 'core') return fields;
  const outlined = { ...fields };
  for (const name of CORE_FAILURE_FIELDS) {
    const value = fields[name];
    if (typeof value === 'string') outlined[name] = value.replace(CORE_FAILURE_TEXT, '$1: "[withheld]"');
  }
  return outlined;
}

/**
 * The SDK's Logger on top of pino: the SDK's metadata become fields, an `error` becomes pino's `err`, or with
 * `withoutFailureText` its outline only (failureOutline), as do the failures core's lines print.
 */
export function temporalLogger(logger: Logger, options: { withoutFailureText?: boolean } = {}): TemporalLogger {
  const log = (level: LogLevel, message: string, meta?: LogMetadata) => {
    const { error, ...sdkFields } = meta ?? {};
    const hidden = options.withoutFailureText === true;
    const err = hidden && error !== undefined ? failureOutline(error) : error;
    const fields = hidden ? withoutCoreFailureText(sdkFields) : sdkFields;
    const record = err === undefined ? fields : { ...fields, err };
    logger[PINO_LEVEL[levelOf(level, message, fields)]](record, message);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

export interface TemporalRuntimeOptions {
  logger: Logger;
  /** `host:port` for the SDK's own Prometheus exporter (worker and core metrics); unset = none. */
  sdkMetricsAddress?: string;
  /** Signals on which the SDK shuts every worker down itself; default the SDK's (SIGINT, SIGTERM, …). */
  shutdownSignals?: NodeJS.Signals[];
  /** The SDK's lines keep a failure's outline only, never its message or stack (with PAYLOAD_ENCRYPTION_KEYS set). */
  withoutFailureText?: boolean;
}

/** How the SDK's runtime says its exporter did not start (core-bridge's runtime.rs). */
const SDK_EXPORTER_FAILED = /^Failed to start prometheus metrics exporter:\s*/i;

/**
 * The SDK's Prometheus exporter could not listen on TEMPORAL_SDK_METRICS_ADDRESS. The SDK's own text ("Failed to
 * start prometheus metrics exporter: Address already in use") names neither the variable nor the address; its reason
 * ends this message.
 */
export class SdkMetricsAddressError extends ListenAddressError {
  readonly type = 'SDK_METRICS_ADDRESS_UNAVAILABLE';
  constructor(address: string, sdkMessage: string) {
    const reason = sdkMessage.replace(SDK_EXPORTER_FAILED, '');
    super('TEMPORAL_SDK_METRICS_ADDRESS', address, "the Temporal SDK's metrics exporter", reason);
    this.name = 'SdkMetricsAddressError';
  }
}

let installed = false;

/**
 * Routes the SDK's runtime, worker and workflow logs (and core's native logs, at WARN and above)
 * through our logger. The runtime is per process and installs once: the first caller wins, as
 * `convengine start` runs the worker and the API in one process. The SDK's metrics exporter binds
 * its address here, before any worker polls: a taken one throws SdkMetricsAddressError.
 */
export function installTemporalRuntime(options: TemporalRuntimeOptions): void {
  if (installed) return;
  const { sdkMetricsAddress } = options;
  try {
    Runtime.install({
      logger: temporalLogger(options.logger, { withoutFailureText: options.withoutFailureText ?? false }),
      ...(options.shutdownSignals ? { shutdownSignals: options.shutdownSignals } : {}),
      telemetryOptions: {
        logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
        // The worker's /metrics appends these series to its own, which all carry component="worker".
        ...(sdkMetricsAddress
          ? {
              metrics: {
                prometheus: { bindAddress: sdkMetricsAddress, countersTotalSuffix: true },
                globalTags: { component: 'worker' },
              },
            }
          : {}),
      },
    });
  } catch (err) {
    // The native module's errors may come from another realm than this module's Error (a test's sandbox).
    const message = (err as { message?: unknown } | null)?.message;
    const exporterFailed = typeof message === 'string' && SDK_EXPORTER_FAILED.test(message);
    throw exporterFailed && sdkMetricsAddress !== undefined
      ? new SdkMetricsAddressError(sdkMetricsAddress, message)
      : err;
  }
  installed = true;
}
