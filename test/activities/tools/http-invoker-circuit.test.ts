import http from 'node:http';
import type net from 'node:net';
import { CircuitRegistry } from '../../../activities/tools/http/circuit';
import { invokeHttpTool } from '../../../activities/tools/http/invoker';
import { MAX_RESPONSE_BYTES } from '../../../activities/tools/http/transport';
import { engineFailure as failureOf } from '../../support/engine-failure';
import { call, deps, useHttpInvokerFixture } from '../../support/http-invoker-fixture';

const { server, row } = useHttpInvokerFixture();

describe('HTTP tool invoker: circuit breaker', () => {
  it('opens after the failure threshold, fails fast while open, and closes after a successful trial', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const d = deps({ circuits, now: () => now });
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2, circuitOpenMs: 5000 });
    server.faults.set('/orders/async-trace', { failTimes: 3, status: 503 });
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    const open = await failureOf(invokeHttpTool(call(r), d));
    expect(open).toMatchObject({ type: 'TOOL_CIRCUIT_OPEN', retryable: true });
    expect(server.counters.requests('/orders/async-trace')).toBe(2);
    now += 5000;
    expect(circuits.phase('demo.tool')).toBe('HALF_OPEN');
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    now += 5000;
    await expect(invokeHttpTool(call(r), d)).resolves.toMatchObject({ status: 200 });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
  });

  const failWith = (status: number, times = 1) =>
    server.faults.set('/orders/async-trace', { failTimes: times, status });

  it('counts one call once, however many activity attempts it takes: one turn cannot open it for everyone', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2 });
    failWith(500, 10);
    const oneCall = call(r);
    for (let attempt = 1; attempt <= 5; attempt++) await failureOf(invokeHttpTool(oneCall, deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
  });

  it('counts only what says the upstream is unhealthy; a 4xx of the request resets the count', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 2, retryStatusCodes: [] });
    for (const status of [404, 400, 401, 422, 404]) {
      failWith(status);
      expect(await failureOf(invokeHttpTool(call(r), deps({ circuits })))).toMatchObject({ retryable: false });
    }
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    failWith(503);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    failWith(404);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    failWith(503);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    // Throttling and a request timeout count, even when the row does not retry them.
    failWith(429);
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    const timeouts = new CircuitRegistry();
    failWith(408, 2);
    for (let i = 0; i < 2; i++) await failureOf(invokeHttpTool(call(r), deps({ circuits: timeouts })));
    expect(timeouts.phase('demo.tool')).toBe('OPEN');
  });

  it('does not count a body over the size cap: the upstream answered', async () => {
    const big = http.createServer((_req, res) => res.end('x'.repeat(MAX_RESPONSE_BYTES + 1)));
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    const { port } = big.address() as net.AddressInfo;
    try {
      const circuits = new CircuitRegistry();
      const r = row({ urlTemplate: `http://127.0.0.1:${port}/big`, maxAttempts: 1, circuitFailureThreshold: 1 });
      const err = await failureOf(invokeHttpTool(call(r), deps({ circuits })));
      expect(err).toMatchObject({ retryable: false, details: { ioKind: 'RESPONSE_TOO_LARGE' } });
      expect(circuits.phase('demo.tool')).toBe('CLOSED');
    } finally {
      big.close();
    }
  });

  it('a 4xx during the half-open trial closes the circuit: the upstream answers', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const d = deps({ circuits, now: () => now });
    const r = row({ maxAttempts: 1, circuitFailureThreshold: 1, circuitOpenMs: 5000 });
    failWith(503);
    await failureOf(invokeHttpTool(call(r), d));
    expect(circuits.phase('demo.tool')).toBe('OPEN');
    now += 5000;
    failWith(404);
    expect(await failureOf(invokeHttpTool(call(r), d))).toMatchObject({ type: 'TOOL_HTTP_ERROR', retryable: false });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
    await expect(invokeHttpTool(call(r), d)).resolves.toMatchObject({ status: 200 });
  });

  it('lets the next call try when a half-open trial ends without an answer (cancelled)', async () => {
    let now = 1_000_000;
    const circuits = new CircuitRegistry(() => now);
    const r = row({ maxAttempts: 2, circuitFailureThreshold: 1, circuitOpenMs: 5000 });
    failWith(503, 3);
    await failureOf(invokeHttpTool(call(r), deps({ circuits, now: () => now })));
    now += 5000;
    const cancelled = new Error('activity cancelled');
    const sleep = () => Promise.reject(cancelled);
    await expect(invokeHttpTool(call(r), deps({ circuits, now: () => now, sleep }))).rejects.toBe(cancelled);
    await expect(invokeHttpTool(call(r), deps({ circuits, now: () => now }))).resolves.toMatchObject({ status: 200 });
    expect(circuits.phase('demo.tool')).toBe('CLOSED');
  });

  it('keeps working when the circuit is disabled', async () => {
    const circuits = new CircuitRegistry();
    const r = row({ maxAttempts: 1, circuitEnabled: false, circuitFailureThreshold: 1 });
    server.faults.set('/orders/async-trace', { failTimes: 1, status: 503 });
    await failureOf(invokeHttpTool(call(r), deps({ circuits })));
    await expect(invokeHttpTool(call(r), deps({ circuits }))).resolves.toMatchObject({ status: 200 });
  });
});
