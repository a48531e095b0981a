import type { Connection } from '@temporalio/client';
import { loadEnv } from '../../config/env';
import { connectTemporalClient } from '../../config/temporal-client';
import {
  configuredTemporal,
  describeTemporal,
  type TemporalConnectionSettings,
} from '../../config/temporal-connection';
import { parseOptions, type CliCommand } from '../command';
import { setupTemporalNamespace } from '../temporal/setup';

const CONNECT_TIMEOUT_MS = 120_000;

/** Connects, retrying while the cluster is still starting (compose starts this job next to it). */
async function connectWhenUp(temporal: TemporalConnectionSettings, log: (line: string) => void): Promise<Connection> {
  const deadline = Date.now() + CONNECT_TIMEOUT_MS;
  for (;;) {
    try {
      const connection = await connectTemporalClient(temporal, { connectTimeout: 5_000 });
      await connection.healthService.check({});
      return connection;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log(`waiting for Temporal at ${describeTemporal(temporal)}…`);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
  }
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
    const { positional, options } = parseOptions(args);
    const retentionDays = Number(options.get('retention-days')?.at(-1) ?? 30);
    if (positional.length > 0 || !Number.isInteger(retentionDays) || retentionDays < 1) {
      io.err('usage: convengine setup-temporal [--retention-days <positive integer>]');
      return 2;
    }
    const env = loadEnv();
    const temporal = configuredTemporal(env);
    const connection = await connectWhenUp(temporal, io.err);
    try {
      await setupTemporalNamespace(connection, { namespace: env.TEMPORAL_NAMESPACE, retentionDays, log: io.out });
      io.out(`namespace ${env.TEMPORAL_NAMESPACE} ready on ${describeTemporal(temporal)}`);
      return 0;
    } finally {
      await connection.close();
    }
  },
};
