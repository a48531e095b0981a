/**
 * `convengine start` with an address the worker must listen on taken (TEMPORAL_SDK_METRICS_ADDRESS,
 * WORKER_METRICS_PORT): the stack cannot run its worker, and the servers it already started (PostgreSQL, the real
 * Temporal server) are stopped, not left behind. The SDK's runtime installs once per process: its case runs first.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Runtime } from '@temporalio/worker';
import { assembleStack } from '../../cli/stack/assemble';
import type { Part, StackServers, TemporalEndpoint } from '../../cli/stack/types';
import { loadEnv } from '../../config/env';
import { silentLogger } from '../../observability/logger';
import { SdkMetricsAddressError } from '../../observability/temporal-runtime';
import { WorkerMetricsPortError } from '../../worker/listeners';

describe('convengine start on a taken address', () => {
  let taken: Server;
  let port: number;
  beforeAll(() => new Promise<void>((resolve) => (taken = createServer().listen(0, '127.0.0.1', resolve))));
  beforeAll(() => void (port = (taken.address() as AddressInfo).port));
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  // The runtime the second case installed has no worker or connection to shut it down once idle.
  afterAll(() => Runtime.instance().shutdown());

  /** assembleStack on servers that record their stop; what it threw, and which were stopped. */
  async function startOn(variables: Record<string, string>): Promise<{ err: unknown; stopped: string[] }> {
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
    const options = { env: loadEnv(variables), home: '/nonexistent', log: () => undefined, logger: silentLogger() };
    const err = await assembleStack(options, servers).then(
      () => new Error('the stack started'),
      (thrown: unknown) => thrown
    );
    return { err, stopped: stopped.sort() };
  }

  it('TEMPORAL_SDK_METRICS_ADDRESS: names the variable and stops the servers it started', async () => {
    const address = `127.0.0.1:${port}`;
    const { err, stopped } = await startOn({ TEMPORAL_SDK_METRICS_ADDRESS: address });
    expect(err).toBeInstanceOf(SdkMetricsAddressError);
    expect((err as Error).message).toContain(`TEMPORAL_SDK_METRICS_ADDRESS=${address}: `);
    expect(stopped).toEqual(['database', 'temporal']);
  });

  // It was found only once the database was prepared and the worker had connected to Temporal.
  it('WORKER_METRICS_PORT: names the variable and stops the servers it started, before preparing either', async () => {
    const { err, stopped } = await startOn({ WORKER_METRICS_PORT: String(port), HOST: '127.0.0.1' });
    expect(err).toBeInstanceOf(WorkerMetricsPortError);
    expect((err as Error).message).toBe(
      `WORKER_METRICS_PORT=${port}: the worker's /metrics, /healthz and /readyz (HOST 127.0.0.1) cannot listen ` +
        'there: address already in use'
    );
    expect(stopped).toEqual(['database', 'temporal']);
  });
});
