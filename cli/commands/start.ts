import { resolve } from 'node:path';
import { loadEnv, TEMPORAL_MODES, type TemporalMode } from '../../config/env';
import { parseOptions, type CliCommand } from '../command';
import { untilSignal } from '../signals';
import { processTelemetry } from '../../observability/process';
import { stackLogLevel, startStack } from '../stack';

const isTemporalMode = (value: string): value is TemporalMode => (TEMPORAL_MODES as readonly string[]).includes(value);

export const startCommand: CliCommand = {
  name: 'start',
  summary: 'Run everything in one process on embedded defaults (Temporal, PostgreSQL, scripted LLM, worker, API).',
  usage: [
    'convengine start [--port 3000] [--temporal=auto|cli|embedded] [--temporal-port 7233] [--home .convengine]',
    '',
    'Uses TEMPORAL_ADDRESS, DATABASE_URL and ANTHROPIC_API_KEY when they are set; otherwise it runs',
    'Temporal, PostgreSQL (data under --home) and a scripted LLM with recorded completions for the',
    'seed packs. Migrates, seeds every pack, runs a worker and the HTTP API.',
    '',
    'Temporal without TEMPORAL_ADDRESS (--temporal, else CONVENGINE_TEMPORAL, default auto):',
    '  cli       the real server and its Web UI (`temporal server start-dev`, state in --home);',
    '            needs `npm run temporal:install` (Go)',
    '  embedded  our dev server (devserver/), nothing to install',
    '  auto      cli when the Temporal CLI is installed, else embedded',
  ].join('\n'),
  async run(args, io) {
    const started = Date.now();
    const { options } = parseOptions(args);
    const env = loadEnv();
    const apiPort = Number(options.get('port')?.at(-1) ?? env.PORT);
    const temporal = options.get('temporal')?.at(-1) ?? env.CONVENGINE_TEMPORAL;
    if (!isTemporalMode(temporal)) {
      io.err(`--temporal must be one of ${TEMPORAL_MODES.join(', ')} (got "${temporal}")`);
      return 2;
    }
    const telemetry = processTelemetry(env, 'convengine', { format: 'pretty', level: stackLogLevel(env) });
    const stack = await startStack({
      env,
      logger: telemetry.logger,
      home: resolve(options.get('home')?.at(-1) ?? '.convengine'),
      apiPort,
      temporalPort: Number(options.get('temporal-port')?.at(-1) ?? 7233),
      temporal,
      log: (line) => io.out(line),
    });
    for (const part of stack.embedded) io.out(`embedded ${part}`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    io.out(
      `ConvEngine ready in ${seconds}s: API ${stack.apiUrl} (${stack.temporal.server} at ${stack.temporalAddress})`
    );
    if (stack.temporal.uiUrl) io.out(`Temporal Web UI: ${stack.temporal.uiUrl}`);
    io.out(`Try: npx convengine demo   or   curl -s ${stack.apiUrl}/docs/openapi.json`);
    await untilSignal();
    io.out('stopping…');
    await stack.stop();
    await telemetry.shutdown();
    return 0;
  },
};
