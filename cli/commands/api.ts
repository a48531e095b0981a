import { keepServing, whenStdoutCloses } from '../closed-output';
import { configuredTemporal } from '../../config/temporal-connection';
import { startApiServer } from '../../api/server';
import type { Logger } from '../../observability/logger';
import { processTelemetry, warnOnFewOpenFiles } from '../../observability/process';
import { usageError, type CliCommand } from '../command';
import { API_NEEDS, serviceEnvironment } from '../environment';
import { errorChain } from '../error-chain';
import { StopSignals, stopWhenNpmEnds } from '../signals';

export const apiCommand: CliCommand = {
  needs: API_NEEDS,
  usage:
    'convengine api\n\nServes /api/v1/…, /docs/openapi.json, /metrics, /healthz and /readyz; starts turn workflows on TEMPORAL_ADDRESS.',
  async run(args, io, validated) {
    if (args.length > 0) return usageError(io, `api: unexpected argument(s): ${args.join(' ')}`, apiCommand.usage);
    const env = serviceEnvironment(validated);
    const databaseUrl = env.DATABASE_URL;
    const telemetry = processTelemetry(env, 'api');
    warnOnFewOpenFiles(telemetry.logger);
    const server = await startApiServer({
      env,
      databaseUrl,
      temporal: configuredTemporal(env),
      logger: telemetry.logger,
      bindDeployment: true,
    }).catch((err: unknown) => {
      // The log line, with its stack, is for the log collector; the operator at a terminal gets the reason.
      telemetry.logger.fatal({ err }, 'API failed to start');
      io.err(`API failed to start: ${errorChain(err)}`);
      return null;
    });
    if (!server) return 1;
    // Before the line that says it listens: a signal sent on that line stops it cleanly, not by Node's default.
    const signals = new StopSignals();
    telemetry.logger.info(
      { url: server.url, bearerToken: Boolean(env.API_TOKEN), operatorToken: Boolean(env.OPERATOR_API_TOKEN) },
      `API listening on ${server.url}${env.API_TOKEN ? ' (bearer token required)' : ''}`
    );
    whenStdoutCloses(keepServing);
    stopWhenNpmEnds(
      () => signals.stopAsOnSigterm(),
      (line) => telemetry.logger.warn(line)
    );
    const signal = await signals.requested;
    signals.onHurry(() => server.hurry());
    await server.close({ delayMs: shutdownDelayMs(signal, env.API_SHUTDOWN_DELAY_MS, telemetry.logger) });
    await telemetry.shutdown();
    return 0;
  },
};

/**
 * How long the API serves on, not ready, before it closes: API_SHUTDOWN_DELAY_MS on SIGTERM (an orchestrator's stop,
 * whose load balancers take seconds to stop sending here), said in the log; 0 on anything else (a Ctrl-C at a
 * terminal, where nothing balances).
 */
function shutdownDelayMs(signal: NodeJS.Signals, delayMs: number, logger: Logger): number {
  if (signal !== 'SIGTERM' || delayMs === 0) return 0;
  logger.info(
    { signal, delayMs },
    `stopping on SIGTERM: /readyz answers 503; serving ${delayMs} ms more (API_SHUTDOWN_DELAY_MS), then closing`
  );
  return delayMs;
}
