/**
 * `convengine start` with TEMPORAL_SDK_METRICS_ADDRESS taken: the SDK's runtime cannot be installed, the stack cannot
 * run a worker, and the servers it already started (PostgreSQL, the real Temporal server) are stopped, not left behind.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { assembleStack } from '../../cli/stack/assemble';
import type { Part, StackServers, TemporalEndpoint } from '../../cli/stack/types';
import { loadEnv } from '../../config/env';
import { silentLogger } from '../../observability/logger';
import { SdkMetricsAddressError } from '../../observability/temporal-runtime';

describe('convengine start on a taken TEMPORAL_SDK_METRICS_ADDRESS', () => {
  let taken: Server;
  beforeAll(() => new Promise<void>((resolve) => (taken = createServer().listen(0, '127.0.0.1', resolve))));
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it('names the variable and stops the servers it started', async () => {
    const address = `127.0.0.1:${(taken.address() as AddressInfo).port}`;
    const stopped: string[] = [];
    const server = <T>(name: string, value: T): Promise<Part<T>> =>
      Promise.resolve({ value, embedded: name, stop: async () => void stopped.push(name) });
    const endpoint: TemporalEndpoint = {
      address: '127.0.0.1:1',
      connection: { address: '127.0.0.1:1' },
      uiUrl: null,
      server: 'x',
    };
    const servers: StackServers = {
      database: server('database', 'postgres://postgres@127.0.0.1:1/none'),
      temporal: server('temporal', endpoint),
    };
    const env = loadEnv({ TEMPORAL_SDK_METRICS_ADDRESS: address });
    const starting = assembleStack(
      { env, home: '/nonexistent', log: () => undefined, logger: silentLogger() },
      servers
    );

    await expect(starting).rejects.toThrow(SdkMetricsAddressError);
    await expect(starting).rejects.toThrow(`TEMPORAL_SDK_METRICS_ADDRESS=${address}: `);
    expect(stopped.sort()).toEqual(['database', 'temporal']);
  });
});
