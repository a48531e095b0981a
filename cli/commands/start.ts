import { keepServing, whenStdoutCloses } from '../closed-output';
import { resolve } from 'node:path';
import { API_DEFAULT_PORT, loadEnv, TEMPORAL_MODES, type Env, type TemporalMode } from '../../config/env';
import type { ConfigRows } from '../../core/config/types';
import { shownText } from '../../core/text/one-line-text';
import { packConfigRows, resolveSeedPacks, UnknownSeedPackError } from '../../db/seed';
import { parseCommandArgs, portOption, usageError, type CliCommand, type CliIo } from '../command';
import { loadYamlTree } from './config';
import { StopSignals, stopWhenNpmEnds } from '../signals';
import { errorChain } from '../error-chain';
import { StartDevFailure } from '../temporal/server';
import type * as TemporalClient from '../../config/temporal-client';
import type * as PrerequisiteProblems from '../../observability/prerequisite-problems';
import { processTelemetry, warnOnFewOpenFiles } from '../../observability/process';
import { stackLogLevel, startStack, type RunningStack, type StackConfig } from '../stack';

/** `--packs` and `--config`: the pack names (checked) and the YAML tree's rows (validated), or an exit code. */
export async function stackConfig(options: Map<string, string[]>, io: CliIo): Promise<StackConfig | number> {
  const packsArg = options.get('packs')?.at(-1) ?? 'all';
  const packs =
    packsArg === 'none'
      ? []
      : packsArg
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p !== '');
  let packRows: ConfigRows;
  try {
    packRows = packConfigRows(resolveSeedPacks(packs));
  } catch (err) {
    if (!(err instanceof UnknownSeedPackError)) throw err;
    io.err(`--packs: ${err.message}, or "none"`);
    return 2;
  }
  const dir = options.get('config')?.at(-1);
  if (dir === undefined) return { packs };
  const rows = await loadYamlTree(resolve(dir), io, packRows).catch((err: unknown) => {
    io.err(shownText(`--config ${dir}: ${(err as Error).message}`));
    return null;
  });
  return rows ? { packs, rows } : 1;
}

const isTemporalMode = (value: string): value is TemporalMode => (TEMPORAL_MODES as readonly string[]).includes(value);

const OPTIONS = {
  values: ['port', 'temporal', 'temporal-port', 'temporal-ui-port', 'home', 'packs', 'config'],
  positional: false,
};

const USAGE = [
  'convengine start [--port 3000] [--temporal=auto|cli|embedded] [--temporal-port 7233]',
  '                 [--temporal-ui-port 8233] [--home .convengine]',
  '                 [--packs all|none|<pack>,<pack>...] [--config <dir>]',
  '',
  'Uses TEMPORAL_ADDRESS, DATABASE_URL and ANTHROPIC_API_KEY when they are set; otherwise it runs',
  'Temporal, PostgreSQL (data under --home) and the keyless demo model. Migrates, seeds the packs',
  '(--packs, default all; `convengine seed --list` names them), runs a worker and the HTTP API.',
  '',
  '--config <dir>  your own config as a YAML tree (`convengine config export` writes one): it is',
  '                validated first, then the config becomes the chosen packs plus the tree (the tree',
  "                wins on equal ids). Use --packs none so the demo packs' GREETING/UNKNOWN rows stay out.",
  '',
  'Temporal without TEMPORAL_ADDRESS (--temporal, else CONVENGINE_TEMPORAL, default auto):',
  '  cli       the real server and its Web UI (`temporal server start-dev`, state in --home; the UI on',
  '            --temporal-ui-port, default the Temporal port + 1000); needs `npm run temporal:install` (Go)',
  '  embedded  our dev server (devserver/), nothing to install',
  '  auto      cli when the Temporal CLI is installed, else embedded',
  'A default Temporal port (7233, its Web UI 8233) that is taken is replaced by a free one; a port given',
  'with --temporal-port or --temporal-ui-port that is taken fails the start (exit 1), as a taken --port does.',
].join('\n');

interface StartArgs {
  options: Map<string, string[]>;
  apiPort: number;
  temporalPort: number;
  /** Absent: the Temporal port + 1000. */
  temporalUiPort: number | undefined;
  temporal: TemporalMode;
}

/** The options of `start`, or exit code 2 once the usage error is printed. */
function startArgs(args: string[], env: Env, io: CliIo): StartArgs | number {
  const parsed = parseCommandArgs('start', args, OPTIONS);
  if (typeof parsed === 'string') return usageError(io, parsed, USAGE);
  const { options } = parsed;
  const apiPort = portOption(options, 'port', env.PORT);
  if (typeof apiPort === 'string') return usageError(io, apiPort, USAGE);
  const temporalPort = portOption(options, 'temporal-port', 7233);
  if (typeof temporalPort === 'string') return usageError(io, temporalPort, USAGE);
  const temporalUiPort = options.has('temporal-ui-port') ? portOption(options, 'temporal-ui-port', 0) : undefined;
  if (typeof temporalUiPort === 'string') return usageError(io, temporalUiPort, USAGE);
  const temporal = options.get('temporal')?.at(-1) ?? env.CONVENGINE_TEMPORAL;
  if (!isTemporalMode(temporal)) {
    return usageError(io, `--temporal must be one of ${TEMPORAL_MODES.join(', ')} (got "${temporal}")`, USAGE);
  }
  return { options, apiPort, temporalPort, temporalUiPort, temporal };
}

/**
 * The demo against the API at `apiUrl`: `convengine demo` alone looks at 127.0.0.1:$PORT (PORT is usually unset in
 * the shell it is typed in), and without an API there it starts a private stack, so any other address needs --url.
 */
export function demoCommandFor(apiUrl: string): string {
  const found = apiUrl === `http://127.0.0.1:${API_DEFAULT_PORT}`;
  return found ? 'npx convengine demo' : `npx convengine demo --url ${apiUrl}`;
}

/**
 * Listens for stop signals before anything starts: a Ctrl-C while the stack comes up stops it once it is up, instead
 * of killing the process with its embedded PostgreSQL left running. `ready` is called once the stack serves.
 */
function listenForStop(io: CliIo): { signals: StopSignals; ready: () => void } {
  let ready = false;
  const signals = new StopSignals();
  // A server keeps serving when its stdout goes (cli/closed-output.ts): Ctrl-C or SIGTERM still stop it.
  whenStdoutCloses(keepServing);
  stopWhenNpmEnds(
    () => signals.stopAsOnSigterm(),
    (line) => io.out(line)
  );
  void signals.requested.then(() => ready || io.out('stopping as soon as the stack is up…'));
  return { signals, ready: () => (ready = true) };
}

/**
 * The banner once the stack is up: what runs embedded, where the API, the Web UI and the console are, and the
 * namespace and task queue its turns run on, which on a shared server tell two deployments apart.
 */
function printReady(io: CliIo, stack: RunningStack, env: Env): void {
  for (const part of stack.embedded) io.out(`embedded ${part}`);
  // From the process's own start, module loading included: the figure a user's stopwatch gives.
  const seconds = (performance.now() / 1000).toFixed(1);
  const deployment = `namespace ${env.TEMPORAL_NAMESPACE}, task queue ${env.TEMPORAL_TASK_QUEUE}`;
  io.out(`ConvEngine ready in ${seconds}s: API ${stack.apiUrl} (${stack.temporal.server}, ${deployment})`);
  if (stack.temporal.uiUrl) io.out(`Temporal Web UI: ${stack.temporal.uiUrl}`);
  io.out(`Turn console: ${stack.apiUrl}/console   (API docs: ${stack.apiUrl}/docs)`);
  io.out(`Try: ${demoCommandFor(stack.apiUrl)}   or   curl -s ${stack.apiUrl}/docs/openapi.json`);
}

/**
 * Serves until a stop signal (exit 0, running turns finishing first) or a part of the stack breaks (exit 1), then
 * stops the stack.
 */
async function serveUntilStopped(io: CliIo, stack: RunningStack, signals: StopSignals): Promise<number> {
  const broken = await Promise.race([signals.requested.then(() => null), stack.broken]);
  if (broken !== null) {
    // A supervisor restarts a process that exits; one left serving without its database or Temporal it would not.
    io.err(`ConvEngine cannot serve turns: ${broken}. Stopping the rest of the stack.`);
    await stack.stop();
    return 1;
  }
  io.out('stopping: running turns finish first (Ctrl-C again to stop now)…');
  // A second signal ends the API's drain; the worker and the embedded servers are still stopped in order.
  let hurried = false;
  signals.onHurry(() => {
    if (!hurried) io.out('stopping now: the worker and the embedded servers stop in order');
    hurried = true;
    stack.hurry();
  });
  await stack.stop();
  return 0;
}

/**
 * Why the stack did not start, in one line. Temporal's own text for a missing namespace is the native worker's dump of
 * the server's status (`Status { code: NotFound, … details: b"…`): the fix is named instead.
 */
export function startFailure(err: unknown, namespace: string): string {
  /* eslint-disable @typescript-eslint/no-require-imports -- required on a failure only: the Temporal client is heavy,
     and `start` loads it after its servers are spawned (cli/stack/index.ts) */
  const { isNamespaceNotFound } = require('../../config/temporal-client') as typeof TemporalClient;
  const { namespaceMissing } = require('../../observability/prerequisite-problems') as typeof PrerequisiteProblems;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const why = isNamespaceNotFound(err) ? namespaceMissing(namespace) : errorChain(err);
  return `ConvEngine failed to start: ${why}${temporalServerOutput(err)}`;
}

/**
 * What the real Temporal server printed before it failed to serve, which the one-line summary drops: after a kill -9
 * a start that timed out said only `not ready within 60000 ms`, and why (a locked or damaged SQLite file, a port) was lost.
 */
function temporalServerOutput(err: unknown): string {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (!(e instanceof StartDevFailure)) continue;
    const output = e.output.trim() ? e.output.trim().replace(/^/gm, '  ') : '  (nothing)';
    const hint = e.timedOut
      ? '\nIt was still starting: if it only needs longer, raise TEMPORAL_CLI_READY_TIMEOUT_MS ' +
        '(docs/runbook.md, "The Temporal server died").'
      : '';
    return `\nThe Temporal server's output:\n${output}${hint}`;
  }
  return '';
}

export const startCommand: CliCommand = {
  usage: USAGE,
  async run(args, io) {
    const env = loadEnv();
    const parsed = startArgs(args, env, io);
    if (typeof parsed === 'number') return parsed;
    const { options, apiPort, temporalPort, temporalUiPort, temporal } = parsed;
    const config = await stackConfig(options, io);
    if (typeof config === 'number') return config;
    const telemetry = processTelemetry(env, 'convengine', { format: 'pretty', level: stackLogLevel(env) });
    warnOnFewOpenFiles(telemetry.logger);
    const stop = listenForStop(io);
    const stack: RunningStack | null = await startStack({
      config,
      env,
      logger: telemetry.logger,
      home: resolve(options.get('home')?.at(-1) ?? '.convengine'),
      apiPort,
      temporalPort,
      temporalUiPort,
      temporalPortGiven: options.has('temporal-port'),
      temporal,
      log: (line) => io.out(line),
    }).catch((err: unknown) => {
      io.err(startFailure(err, env.TEMPORAL_NAMESPACE));
      return null;
    });
    if (!stack) {
      await telemetry.shutdown();
      return 1;
    }
    printReady(io, stack, env);
    stop.ready();
    const code = await serveUntilStopped(io, stack, stop.signals);
    await telemetry.shutdown();
    return code;
  },
};
