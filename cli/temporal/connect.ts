import type { Connection } from '@temporalio/client';
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
