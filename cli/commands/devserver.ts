import { existsSync } from 'node:fs';
import { keepServing, whenStdoutCloses } from '../closed-output';
import { loadEnv } from '../../config/env';
import { processTelemetry } from '../../observability/process';
import type { CliCommand, CliIo } from '../command';
import { parseCommandArgs, portOption, usageError } from '../command';
import { StopSignals } from '../signals';
import { SEARCH_ATTRIBUTE_TYPES, type SearchAttributeType } from '../../devserver/engine/search-attributes';
import { startDevServer } from '../../devserver';
import { repairJournal } from '../../devserver/engine/journal-file';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

const OPTIONS = {
  values: ['port', 'host', 'namespace', 'persist', 'search-attribute', 'repair-journal'],
  repeatable: ['search-attribute'],
};

interface DevServerArgs {
  port: number;
  host: string;
  namespace: string;
  persistPath?: string;
  searchAttributes: Record<string, SearchAttributeType>;
  /** `--repair-journal <file>`: repair that journal and exit, serving nothing. */
  repairJournal?: string;
}

/** A usage error: run prints it with the synopsis and exits 2. */
class UsageProblem extends Error {}

/** `Name=Type`, type matched case-insensitively against Keyword, Int, ... */
function parseSearchAttribute(spec: string): [string, SearchAttributeType] {
  const [name, typeName] = spec.split('=');
  const type = SEARCH_ATTRIBUTE_TYPES.find((t) => t.toLowerCase() === (typeName ?? '').toLowerCase());
  if (!name || !type) {
    throw new UsageProblem(
      `--search-attribute expects Name=Type with Type one of ${SEARCH_ATTRIBUTE_TYPES.join(', ')}; got "${spec}"`
    );
  }
  return [name, type];
}

/**
 * A text option's value (`fallback` when absent); blank is a usage error: `--namespace ""` served a namespace
 * no client can name.
 */
function textOption<F extends string | undefined>(options: Map<string, string[]>, name: string, fallback: F) {
  const text = options.get(name)?.[0];
  if (text === undefined) return fallback;
  if (text.trim() === '') throw new UsageProblem(`--${name} needs a value`);
  return text;
}

function parseArgs(args: string[]): DevServerArgs {
  const parsed = parseCommandArgs('devserver', args, { ...OPTIONS, positional: false });
  if (typeof parsed === 'string') throw new UsageProblem(parsed);
  const { options } = parsed;
  // The shared port rule: `--port ""` was Number('') = 0, a random port.
  const port = portOption(options, 'port', 7233);
  if (typeof port === 'string') throw new UsageProblem(port);
  return {
    port,
    host: textOption(options, 'host', '127.0.0.1'),
    namespace: textOption(options, 'namespace', 'default'),
    persistPath: textOption(options, 'persist', undefined),
    repairJournal: textOption(options, 'repair-journal', undefined),
    // The turn workflow's attributes are always there, so `convengine worker` works against it as is.
    searchAttributes: {
      ...TURN_SEARCH_ATTRIBUTES,
      ...Object.fromEntries((options.get('search-attribute') ?? []).map(parseSearchAttribute)),
    },
  };
}

/** `--repair-journal`: keeps every record before the journal's first corrupt line (journal-file.ts repairJournal). */
function repair(file: string, io: CliIo): number {
  if (!existsSync(file)) {
    io.err(`${file}: no such journal`);
    return 1;
  }
  const report = repairJournal(file);
  if (report.firstDroppedLine === null) {
    io.out(`${file}: every line is whole (${report.keptLines}); nothing to repair`);
    return 0;
  }
  io.out(
    `${file}: kept the ${report.keptLines} line(s) before line ${report.firstDroppedLine}, dropped ` +
      `${report.droppedLines} from there on; the file as it was is ${report.backup}`
  );
  return 0;
}

async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: DevServerArgs;
  try {
    parsed = parseArgs(args);
  } catch (error) {
    if (error instanceof UsageProblem) return usageError(io, error.message, devserverCommand.usage);
    throw error;
  }
  if (parsed.repairJournal !== undefined) return repair(parsed.repairJournal, io);
  const env = loadEnv();
  const { logger } = processTelemetry(env, 'devserver');
  // From the environment, not an argument: a key on the command line is readable in `ps` by every user.
  const apiKey = env.DEVSERVER_API_KEY;
  const server = await startDevServer({
    port: parsed.port,
    host: parsed.host,
    namespace: parsed.namespace,
    persistPath: parsed.persistPath,
    searchAttributes: parsed.searchAttributes,
    apiKey,
    onInternalError: (err) => logger.error({ err }, 'dev server internal error'),
    onWarning: (message) => logger.warn(message),
  });
  const storage = `${parsed.persistPath ? `persisted to ${parsed.persistPath}` : 'in-memory'}${apiKey ? ', API key required' : ''}`;
  logger.info(
    { address: server.address, namespace: server.namespace, persistPath: parsed.persistPath ?? null },
    `Temporal dev server ready at ${server.address} (namespace ${server.namespace}, ${storage})`
  );
  whenStdoutCloses(keepServing);
  await new StopSignals().requested;
  await server.stop();
  return 0;
}

export const devserverCommand: CliCommand = {
  usage:
    'convengine devserver [--port 7233] [--host 127.0.0.1] [--namespace default] [--persist <file>] ' +
    '[--search-attribute Name=Type ...]\n       convengine devserver --repair-journal <file>\n\n' +
    '--repair-journal keeps every record before the first corrupt line of a journal (`--persist`, or ' +
    "`convengine start`'s <home>/temporal-devserver.jsonl), drops the rest, keeps the file as it was beside it, " +
    'and exits.\nDEVSERVER_API_KEY=<key>: refuse every call without `authorization: Bearer <key>`.',
  run,
};
