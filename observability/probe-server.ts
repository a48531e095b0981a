import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { Registry } from 'prom-client';
import { DATABASE_BUSY, DATABASE_BUSY_WARNING } from './dependency-checks';
import type { Logger } from './logger';

export type ReadinessChecks = Record<string, 'ok' | string>;

/**
 * Readiness: each check (all `ok`, or a busy database, to be ready), and what an operator must know that keeps none
 * from being ready.
 */
export interface Readiness {
  checks: ReadinessChecks;
  warnings?: Record<string, string>;
}

/**
 * The Prometheus text of `registry`, followed by the SDK's own metrics when its exporter runs
 * (TEMPORAL_SDK_METRICS_ADDRESS): one scrape target per process. An unreachable SDK exporter
 * costs its section, never the scrape.
 */
export async function metricsText(registry: Registry, sdkMetricsAddress?: string): Promise<string> {
  const own = withPrometheusNaN(await registry.metrics());
  if (!sdkMetricsAddress) return own;
  const url = `http://${sdkMetricsAddress.replace(/^0\.0\.0\.0:/, '127.0.0.1:')}/metrics`;
  const sdk = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    (res) => (res.ok ? res.text() : ''),
    () => ''
  );
  return sdk ? `${own}\n# Temporal SDK (core) metrics\n${sdk}` : own;
}

/**
 * prom-client (15.x, lib/util.js) writes a NaN sample as `Nan`; the text format spells it `NaN`. Prometheus's own
 * parser takes either case, other readers need not. Only a sample's value is rewritten: it is a line's last field
 * (prom-client writes no timestamps) on a line that is no # HELP or # TYPE, and a label value is always quoted.
 */
export function withPrometheusNaN(text: string): string {
  return text.replace(/^([^#].* )Nan$/gm, '$1NaN');
}

/**
 * Every check must say `ok`, or `busy` (a database answering the pool, but not a check in time): readiness fails for
 * what re-routing or a restart mends, and every replica on the database is as busy. A 503 then would take them all
 * out of rotation at once, and bring them back together into the same load; requests say it instead (503
 * DATABASE_BUSY with retry-after). The body names each check, never an error text, and the warnings when there are
 * some: a busy check always has one.
 */
export function readinessReply({ checks, warnings = {} }: Readiness): { statusCode: number; body: object } {
  const ready = Object.values(checks).every((v) => v === 'ok' || v === DATABASE_BUSY);
  const said = { ...warnings };
  for (const [name, value] of Object.entries(checks)) {
    if (value !== DATABASE_BUSY) continue;
    const before = said[name];
    said[name] = before === undefined ? DATABASE_BUSY_WARNING : `${before}; ${DATABASE_BUSY_WARNING}`;
  }
  const body = { status: ready ? 'ready' : 'not ready', checks };
  return { statusCode: ready ? 200 : 503, body: Object.keys(said).length > 0 ? { ...body, warnings: said } : body };
}

export interface ProbeServerOptions {
  host: string;
  port: number;
  metrics(): Promise<string>;
  readiness(): Promise<Readiness>;
  logger: Logger;
}

export interface ProbeServer {
  url: string;
  close(): Promise<void>;
}

/** The worker's /metrics, /healthz and /readyz (the API serves the same routes on its own port). */
export async function startProbeServer(options: ProbeServerOptions): Promise<ProbeServer> {
  const app = Fastify({
    loggerInstance: options.logger.child({ probe: true }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const { statusCode, body } = readinessReply(await options.readiness());
    return reply.status(statusCode).send(body);
  });
  app.get('/metrics', async (_request, reply) =>
    reply.type('text/plain; version=0.0.4; charset=utf-8').send(await options.metrics())
  );
  const url = await app.listen({ host: options.host, port: options.port });
  return { url, close: () => app.close() };
}
