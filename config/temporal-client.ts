import { Connection, type ConnectionOptions } from '@temporalio/client';
import { unreachable, type TemporalConnectionSettings } from './temporal-connection';

/** The client options (gateway, CLI commands) for `settings`: address, TLS and API key. */
export function clientConnectionOptions(
  settings: TemporalConnectionSettings,
  extra: Pick<ConnectionOptions, 'connectTimeout'> = {}
): ConnectionOptions {
  return {
    address: settings.address,
    ...(settings.tls ? { tls: settings.tls } : {}),
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...extra,
  };
}

/** A client connection to the cluster `settings` names; a failure is a TemporalUnreachableError. */
export function connectTemporalClient(
  settings: TemporalConnectionSettings,
  extra: Pick<ConnectionOptions, 'connectTimeout'> = {}
): Promise<Connection> {
  return Connection.connect(clientConnectionOptions(settings, extra)).catch((err: unknown) => {
    throw unreachable(settings, err);
  });
}
