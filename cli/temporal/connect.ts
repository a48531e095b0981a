import type { Connection } from '@temporalio/client';
import { HOST_PORT_RULE, isHostPort } from '../../config/env-values';
import { connectTemporalClient } from '../../config/temporal-client';
import type { TemporalConnectionSettings } from '../../config/temporal-connection';

/** Runs `fn` on a connection to `settings`, closed after; a failure to connect is a TemporalUnreachableError. */
export async function withTemporalConnection<T>(
  settings: TemporalConnectionSettings,
  fn: (connection: Connection) => Promise<T>
): Promise<T> {
  const connection = await connectTemporalClient(settings);
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/**
 * The `--address` option: its value, undefined when absent, or the usage error for one that is not host:port
 * (the same rule as TEMPORAL_ADDRESS), before any connection is tried.
 */
export function addressOption(options: ReadonlyMap<string, readonly string[]>): { address?: string } | string {
  const address = options.get('address')?.at(-1);
  if (address === undefined) return {};
  return isHostPort(address) ? { address } : `--address ${HOST_PORT_RULE}, not "${address}"`;
}
