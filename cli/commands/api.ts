import { keepServing, whenStdoutCloses } from '../closed-output';
import { configuredTemporal } from '../../config/temporal-connection';
import { startApiServer } from '../../api/server';
import { processTelemetry } from '../../observability/process';
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
    telemetry.logger.info(
      { url: server.url, bearerToken: Boolean(env.API_TOKEN), operatorToken: Boolean(env.OPERATOR_API_TOKEN) },
      `API listening on ${server.url}${env.API_TOKEN ? ' (bearer token required)' : ''}`
    );
    const signals = new StopSignals();
    whenStdoutCloses(keepServing);
    stopWhenNpmEnds(
      () => signals.stopAsOnSigterm(),
      (line) => telemetry.logger.warn(line)
    );
    await signals.requested;
    signals.onHurry(() => server.hurry());
    await server.close();
    await telemetry.shutdown();
    return 0;
  },
};
