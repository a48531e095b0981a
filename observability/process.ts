import type { Env } from '../config/env';
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
  const tracing = setupTracing({ serviceName: env.OTEL_SERVICE_NAME, otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT });
  return { logger, tracing, shutdown: async () => tracing?.shutdown() };
}
