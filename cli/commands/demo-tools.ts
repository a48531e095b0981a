import { keepServing, whenStdoutCloses } from '../closed-output';
import { DEMO_API_KEY, startDemoToolServer } from '../../demo/tool-server';
import { createLogger } from '../../observability/logger';
import { EMBEDDED_KEPT_REQUESTS } from '../stack/parts';
import { parseCommandArgs, portOption, usageError, type CliCommand } from '../command';
import { StopSignals } from '../signals';

/** Where `convengine demo-tools` listens when not told: the port docker-compose's worker calls it on. */
export const DEMO_TOOLS_DEFAULT_PORT = 8090;

const OPTIONS = { values: ['port', 'host'], positional: false };

/**
 * The demo tool server `convengine start` runs in its own process, on its own: the business APIs the seed packs'
 * HTTP tools call, for a stack whose worker runs elsewhere (docker-compose). It expects CONVENGINE_TOOL_DEMO_API_KEY
 * as the order API's key, the variable the worker's tools send it from, so one setting serves both.
 */
export const demoToolsCommand: CliCommand = {
  usage: [
    `convengine demo-tools [--port ${DEMO_TOOLS_DEFAULT_PORT}] [--host 127.0.0.1]`,
    '',
    "Serves the demo business APIs the seed packs' HTTP tools call (loan and order routes, /health); point the",
    'worker at it with CONVENGINE_TOOL_DEMO_URL. The order API expects CONVENGINE_TOOL_DEMO_API_KEY (default',
    `${DEMO_API_KEY}) in X-API-KEY. Stops on SIGINT or SIGTERM.`,
  ].join('\n'),
  async run(args, io, env) {
    const parsed = parseCommandArgs('demo-tools', args, OPTIONS);
    if (typeof parsed === 'string') return usageError(io, parsed, demoToolsCommand.usage);
    const port = portOption(parsed.options, 'port', DEMO_TOOLS_DEFAULT_PORT);
    if (typeof port === 'string') return usageError(io, port, demoToolsCommand.usage);
    const host = parsed.options.get('host')?.at(-1) ?? '127.0.0.1';
    if (host.trim() === '') return usageError(io, '--host needs a value', demoToolsCommand.usage);
    const logger = createLogger({ level: env.LOG_LEVEL, format: env.LOG_FORMAT ?? 'json', name: 'demo-tools' });
    const server = await startDemoToolServer({
      port,
      host,
      apiKey: env.CONVENGINE_TOOL_DEMO_API_KEY ?? DEMO_API_KEY,
      keptRequests: EMBEDDED_KEPT_REQUESTS,
    });
    logger.info({ host, port, baseUrl: server.baseUrl }, `demo tool server listening at ${server.baseUrl}`);
    whenStdoutCloses(keepServing);
    await new StopSignals().requested;
    await server.stop();
    return 0;
  },
};
