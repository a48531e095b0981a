import type { Env } from '../config/env';
import { lowOpenFilesWarning, openFilesLimit } from '../config/open-files';
import { withoutFailureText } from './failure-outline';
import { createLogger, type LogFormat, type Logger } from './logger';
import { setupTracing, type Tracing } from './tracing';

export interface ProcessTelemetry {
  logger: Logger;
  tracing: Tracing | null;
  /** Flushes spans still buffered; call before the process exits. */
  shutdown(): Promise<void>;
}

/**
 * A CLI process's logger (LOG_LEVEL, LOG_FORMAT) and tracing (OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_SERVICE_NAME). `convengine start` is for humans: it asks for pretty lines (unless
 * LOG_FORMAT says otherwise) and its own level (see cli/stack).
 */
export function processTelemetry(
  env: Env,
  name: string,
  defaults: { format?: LogFormat; level?: string } = {}
): ProcessTelemetry {
  const logger = createLogger({
    level: defaults.level ?? env.LOG_LEVEL,
    format: env.LOG_FORMAT ?? defaults.format ?? 'json',
    name,
  });
  const tracing = setupTracing({
    serviceName: env.OTEL_SERVICE_NAME,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    withoutFailureText: withoutFailureText(env),
  });
  return { logger, tracing, shutdown: () => flushSpans(tracing, logger) };
}

/**
 * Spans still buffered are sent once more at stop. A collector that is down or slow loses them, which is worth a
 * warning but is no failure of the stop: without this, every stop behind an unanswering endpoint exited 1 with only
 * the exporter's "Request Timeout". The endpoint is not logged (it may carry credentials).
 */
async function flushSpans(tracing: Tracing | null, logger: Logger): Promise<void> {
  try {
    await tracing?.shutdown();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    logger.warn({ reason }, 'spans buffered at stop were not exported (OTEL_EXPORTER_OTLP_ENDPOINT)');
  }
}

/**
 * A serving process (`start`, `api`, `worker`) says at start when its open-files limit is low, with the number and why
 * (config/open-files.ts): under load it would otherwise run out of descriptors first, and abort.
 */
export function warnOnFewOpenFiles(
  logger: { warn(fields: object, line: string): void },
  limit: number | null = openFilesLimit()
): void {
  const warning = lowOpenFilesWarning(limit);
  if (warning) logger.warn({ openFilesLimit: limit }, warning);
}
