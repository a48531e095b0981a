import { Connection } from '@temporalio/client';
import { installedTemporalCli } from '../../cli/temporal/binary';
import { startTemporalCli, type TemporalCliServer } from '../../cli/temporal/server';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { startDevServer } from '../../devserver';

/** Where workflow tests run: the server named by TEMPORAL_ADDRESS, or an in-memory dev server on a free port. */
export interface TestTemporal {
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

/** True in `npm run test:temporal` (or whenever TEMPORAL_ADDRESS names a real server). */
export const usingRealServer = Boolean(process.env.TEMPORAL_ADDRESS);

/**
 * Starts an in-memory dev server on an ephemeral port, unless TEMPORAL_ADDRESS points at a real
 * server (then TEMPORAL_NAMESPACE, default "default", is used and `stop` does nothing).
 */
export async function getTestTemporal(): Promise<TestTemporal> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (address) {
    return { address, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default', stop: async () => undefined };
  }
  const server = await startDevServer({ port: 0 });
  return { address: server.address, namespace: server.namespace, stop: () => server.stop() };
}

/** getTestTemporal, its namespace set up as `convengine setup-temporal` does (the turn search attributes). */
export async function getSetUpTestTemporal(): Promise<TestTemporal> {
  const temporal = await getTestTemporal();
  const connection = await Connection.connect({ address: temporal.address });
  try {
    await setupTemporalNamespace(connection, { namespace: temporal.namespace });
  } catch (err) {
    await temporal.stop();
    throw err;
  } finally {
    await connection.close();
  }
  return temporal;
}

/** The installed Temporal CLI; real-server tests fail with the fix when it is missing. */
export function temporalCliBinary(): string {
  const binary = installedTemporalCli();
  if (!binary) throw new Error('the Temporal CLI is not installed: run `npm run temporal:install`');
  return binary;
}

/** A real server of the test's own (SQLite in `dbFile`, so it survives a kill and restart on `port`). */
export function startOwnRealServer(options: { dbFile: string; port?: number }): Promise<TemporalCliServer> {
  return startTemporalCli({ binary: temporalCliBinary(), dbFile: options.dbFile, port: options.port });
}
