import type { Connection } from '@temporalio/client';
import { connectTemporalClient } from '../../config/temporal-client';
import { describeTemporal, type TemporalConnectionSettings } from '../../config/temporal-connection';
import { errorChain } from '../error-chain';

/** "cannot reach Temporal at 127.0.0.1:7233 (plaintext): <why>": the client's own message never names the address. */
export function unreachable(settings: TemporalConnectionSettings, err: unknown): Error {
  return new Error(`cannot reach Temporal at ${describeTemporal(settings)}: ${errorChain(err)}`, { cause: err });
}

/** Runs `fn` on a connection to `settings`, closed after; a failure to connect is thrown as unreachable() says. */
export async function withTemporalConnection<T>(
  settings: TemporalConnectionSettings,
  fn: (connection: Connection) => Promise<T>
): Promise<T> {
  const connection = await connectTemporalClient(settings).catch((err: unknown) => {
    throw unreachable(settings, err);
  });
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}
