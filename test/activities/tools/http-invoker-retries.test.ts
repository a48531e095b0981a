import net from 'node:net';
import { invokeHttpTool } from '../../../activities/tools/http/invoker';
import { startDemoToolServer } from '../../../demo/tool-server';
import { engineFailure as failureOf } from '../../support/engine-failure';
import { call, deps, useHttpInvokerFixture } from '../../support/http-invoker-fixture';

const { server, row } = useHttpInvokerFixture();

describe('HTTP tool invoker: retries and timeouts', () => {
  it('retries 503 with backoff and succeeds on a later attempt', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 2, status: 503 });
    const sleeps: number[] = [];
    const out = await invokeHttpTool(
      call(row({ maxAttempts: 3, initialBackoffMs: 10, backoffMultiplier: 3, maxBackoffMs: 25 })),
      deps({ sleep: async (ms) => void sleeps.push(ms) })
    );
    expect(out).toMatchObject({ status: 200, attempt: 3 });
    expect(sleeps).toEqual([10, 25]);
    expect(server.counters.requests('/orders/async-trace')).toBe(3);
  });

  it('gives up after max_attempts with a retryable error naming the status', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 5, status: 502 });
    const err = await failureOf(invokeHttpTool(call(row({ maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: true });
    expect(err.message).toContain('status 502 after 2 attempt(s)');
  });

  it('does not retry a status outside retry_status_codes', async () => {
    server.faults.set('/orders/async-trace', { failTimes: 5, status: 500 });
    await failureOf(invokeHttpTool(call(row({ maxAttempts: 3, retryStatusCodes: [503] })), deps()));
    expect(server.counters.requests('/orders/async-trace')).toBe(1);
  });

  it('times out a slow response (read timeout) and retries it', async () => {
    server.faults.set('/orders/async-trace', { delayMs: 400 });
    const err = await failureOf(invokeHttpTool(call(row({ readTimeoutMs: 100, maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
    expect(err.message).toContain('timeout after 2 attempt(s)');
    expect(server.counters.requests('/orders/async-trace')).toBe(2);
  });

  it('times out a connection that is never established (connect timeout)', async () => {
    // A TCP listener that never answers the TLS handshake: the https connection never completes.
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    try {
      const r = row({
        urlTemplate: `https://127.0.0.1:${port}/x`,
        connectTimeoutMs: 150,
        readTimeoutMs: 5000,
        maxAttempts: 1,
      });
      const started = Date.now();
      const err = await failureOf(invokeHttpTool(call(r), deps()));
      expect(err).toMatchObject({ type: 'TOOL_TIMEOUT', retryable: true });
      expect(err.message).toContain('no connection within 150 ms');
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      silent.close();
    }
  });

  it('treats a refused connection as a retryable IO error', async () => {
    const dead = await startDemoToolServer();
    const url = `${dead.baseUrl}/orders/async-trace`;
    await dead.stop();
    const err = await failureOf(invokeHttpTool(call(row({ urlTemplate: url, maxAttempts: 2 })), deps()));
    expect(err).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: true });
    expect(err.message).toContain('IO error after 2 attempt(s)');
  });

  it('sends one stable Idempotency-Key on every attempt, so a write applied before a timeout is not applied twice', async () => {
    server.faults.set('/loan/applications', { applyThenTimeout: { times: 1, delayMs: 500 } });
    const r = row({
      urlTemplate: `${server.baseUrl}/loan/applications`,
      httpMethod: 'POST',
      readTimeoutMs: 150,
      maxAttempts: 3,
    });
    const key = 'turn-c-1-4/tool/2';
    const out = await invokeHttpTool(call(r, { customerId: 'C1' }, key), deps());
    expect(out).toMatchObject({ status: 201, attempt: 2, mapped: { applicationId: 'LA-90311', status: 'SUBMITTED' } });
    expect(server.counters.log.map((l) => l.headers['idempotency-key'])).toEqual([key, key]);
    expect(server.counters.writeEffects(key)).toBe(1);
  });
});
