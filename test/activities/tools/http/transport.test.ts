import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendOnce } from '../../../../activities/tools/http/transport';

/** A server that accepts the request and never answers: a tool behind a long read timeout. */
async function silentServer(): Promise<{ url: string; server: Server }> {
  const server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`, server };
}

describe('sendOnce (activities/tools/http/transport.ts)', () => {
  it("ends a call at once when its activity is cancelled, with the cancellation's reason, not its read timeout", async () => {
    const { url, server } = await silentServer();
    try {
      const controller = new AbortController();
      const started = Date.now();
      const call = sendOnce(
        { method: 'GET', url, headers: {}, body: null },
        { connectTimeoutMs: 5_000, readTimeoutMs: 60_000, signal: controller.signal }
      );
      setTimeout(() => controller.abort(new Error('worker shutting down')), 100);
      await expect(call).rejects.toThrow('worker shutting down');
      expect(Date.now() - started).toBeLessThan(5_000);
      const already = sendOnce(
        { method: 'GET', url, headers: {}, body: null },
        { connectTimeoutMs: 5_000, readTimeoutMs: 60_000, signal: AbortSignal.abort(new Error('cancelled before')) }
      );
      await expect(already).rejects.toThrow('cancelled before');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
