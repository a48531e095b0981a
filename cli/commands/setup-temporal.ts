import type { Connection } from '@temporalio/client';
import { loadEnv } from '../../config/env';
import { connectTemporalClient, isTemporalUnreachable } from '../../config/temporal-client';
import {
  configuredTemporal,
  describeTemporal,
  unreachable,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { parseCommandArgs, type CliCommand } from '../command';
import { errorChain } from '../error-chain';
import { setupTemporalNamespace } from '../temporal/setup';

const CONNECT_TIMEOUT_MS = 120_000;

/**
 * Whether waiting may help: the cluster is not up yet. Any other refusal (UNIMPLEMENTED,
 * UNAUTHENTICATED, PERMISSION_DENIED, ...) is the same in two minutes, so it fails at once.
 */
const stillStarting = isTemporalUnreachable;

/** A connection whose health check answered, or the reason there is none. */
async function connectHealthy(temporal: TemporalConnectionSettings): Promise<Connection> {
  const connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
  try {
    await connection.healthService.check({});
    return connection;
  } catch (err) {
    await connection.close();
    throw err;
  }
}

/** Connects, retrying while the cluster is still starting (compose starts this job next to it). */
async function connectWhenUp(temporal: TemporalConnectionSettings, log: (line: string) => void): Promise<Connection> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  for (;;) {
    try {
      return await connectHealthy(temporal);
    } catch (err) {
      if (!stillStarting(err) || Date.now() > deadline) throw unreachable(temporal, err);
      log(`waiting for Temporal at ${describeTemporal(temporal)}…`);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
  }
}

const OPTIONS = { values: ['retention-days'], positional: false };

/** `--retention-days` (default 30), or the usage error. */
function retentionDaysOf(args: string[]): number | string {
  const parsed = parseCommandArgs('setup-temporal', args, OPTIONS);
  if (typeof parsed === 'string') return parsed;
  const text = parsed.options.get('retention-days')?.at(-1) ?? '30';
  const days = Number(text);
  return Number.isInteger(days) && days >= 1 ? days : `--retention-days must be a positive integer (got "${text}")`;
}

export const setupTemporalCommand: CliCommand = {
  usage: [
    'convengine setup-temporal [--retention-days 30]',
    '',
    'On TEMPORAL_ADDRESS: creates TEMPORAL_NAMESPACE when it does not exist (with that retention for',
    'closed turns) and registers every search attribute the turn workflow upserts that it lacks.',
    'docker-compose runs it as the temporal-bootstrap job; run it once for any other cluster.',
  ].join('\n'),
  async run(args, io) {
    const retentionDays = retentionDaysOf(args);
    if (typeof retentionDays === 'string') {
      io.err(retentionDays);
      io.err('usage: convengine setup-temporal [--retention-days <positive integer>]');
      return 2;
    }
    const env = loadEnv();
    const temporal = configuredTemporal(env);
    let connection: Connection;
    try {
      connection = await connectWhenUp(temporal, io.err);
    } catch (err) {
      io.err(`setup-temporal: ${errorChain(err)}`);
      return 1;
    }
    try {
      await setupTemporalNamespace(connection, { namespace: env.TEMPORAL_NAMESPACE, retentionDays, log: io.out });
      io.out(`namespace ${env.TEMPORAL_NAMESPACE} ready on ${describeTemporal(temporal)}`);
      return 0;
    } catch (err) {
      io.err(`setup-temporal: ${describeTemporal(temporal)}: ${errorChain(err)}`);
      return 1;
    } finally {
      await connection.close();
    }
  },
};
