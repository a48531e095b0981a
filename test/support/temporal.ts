import { startDevServer } from '../../devserver';

/** Where workflow tests run: the server named by TEMPORAL_ADDRESS, or an in-memory dev server on a free port. */
export interface TestTemporal {
  address: string;
  namespace: string;
  stop(): Promise<void>;
}

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
