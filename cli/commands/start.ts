import { resolve } from 'node:path';
import { loadEnv } from '../../config/env';
import { parseOptions, type CliCommand } from '../command';
import { untilSignal } from '../signals';
import { startStack } from '../stack';

export const startCommand: CliCommand = {
  name: 'start',
  summary: 'Run everything in one process on embedded defaults (dev server, PGlite, scripted LLM, worker, API).',
  usage: [
    'convengine start [--port 3000] [--temporal-port 7233] [--home .convengine]',
    '',
    'Uses TEMPORAL_ADDRESS, DATABASE_URL and ANTHROPIC_API_KEY when they are set; otherwise it embeds',
    'the Temporal dev server, PostgreSQL (PGlite, data under --home) and a scripted LLM with recorded',
    'completions for the seed packs. Migrates, seeds every pack, runs a worker and the HTTP API.',
  ].join('\n'),
  async run(args, io) {
    const started = Date.now();
    const { options } = parseOptions(args);
    const env = loadEnv();
    const apiPort = Number(options.get('port')?.at(-1) ?? env.PORT);
    const stack = await startStack({
      env,
      home: resolve(options.get('home')?.at(-1) ?? '.convengine'),
      apiPort,
      temporalPort: Number(options.get('temporal-port')?.at(-1) ?? 7233),
      log: (line) => io.out(line),
    });
    for (const part of stack.embedded) io.out(`embedded ${part}`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    io.out(`ConvEngine ready in ${seconds}s: API ${stack.apiUrl} (Temporal ${stack.temporalAddress})`);
    io.out(`Try: npx convengine demo   or   curl -s ${stack.apiUrl}/docs/openapi.json`);
    await untilSignal();
    io.out('stopping…');
    await stack.stop();
    return 0;
  },
};
