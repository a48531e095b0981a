import { keepServing, whenStdoutCloses } from '../closed-output';
import { loadEnv } from '../../config/env';
import { processTelemetry } from '../../observability/process';
import type { CliCommand, CliIo } from '../command';
import { readOptions } from '../command';
import { StopSignals } from '../signals';
import { SEARCH_ATTRIBUTE_TYPES, type SearchAttributeType } from '../../devserver/engine/search-attributes';
import { startDevServer } from '../../devserver';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

const OPTIONS = { values: ['port', 'host', 'namespace', 'persist', 'search-attribute'] };

interface DevServerArgs {
  port: number;
  host: string;
  namespace: string;
  persistPath?: string;
  searchAttributes: Record<string, SearchAttributeType>;
}

function last(values: string[] | undefined): string | undefined {
  return values?.[values.length - 1];
}

/** `Name=Type`, type matched case-insensitively against Keyword, Int, ... */
function parseSearchAttribute(spec: string): [string, SearchAttributeType] {
  const [name, typeName] = spec.split('=');
  const type = SEARCH_ATTRIBUTE_TYPES.find((t) => t.toLowerCase() === (typeName ?? '').toLowerCase());
  if (!name || !type) {
    throw new Error(
      `--search-attribute expects Name=Type with Type one of ${SEARCH_ATTRIBUTE_TYPES.join(', ')}; got "${spec}"`
    );
  }
  return [name, type];
}

function parseArgs(args: string[]): DevServerArgs {
  const parsed = readOptions(args, OPTIONS);
  if (typeof parsed === 'string') throw new Error(parsed);
  const { positional, options, unknown } = parsed;
  if (unknown.length > 0) throw new Error(`Unknown option ${unknown[0]}`);
  if (positional.length > 0) throw new Error(`Unexpected argument "${positional[0]}"`);
  const port = Number(last(options.get('port')) ?? '7233');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('--port expects a number from 0 to 65535');
  return {
    port,
    host: last(options.get('host')) ?? '127.0.0.1',
    namespace: last(options.get('namespace')) ?? 'default',
    persistPath: last(options.get('persist')),
    // The turn workflow's attributes are always there, so `convengine worker` works against it as is.
    searchAttributes: {
      ...TURN_SEARCH_ATTRIBUTES,
      ...Object.fromEntries((options.get('search-attribute') ?? []).map(parseSearchAttribute)),
    },
  };
}

async function run(args: string[], io: CliIo): Promise<number> {
  let parsed: DevServerArgs;
  try {
    parsed = parseArgs(args);
  } catch (error) {
    io.err((error as Error).message);
    return 2;
  }
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
    '[--search-attribute Name=Type ...]\n\nDEVSERVER_API_KEY=<key>: refuse every call without `authorization: Bearer <key>`.',
  run,
};
