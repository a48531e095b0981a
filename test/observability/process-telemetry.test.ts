import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { loadEnv } from '../../config/env';
import { processTelemetry } from '../../observability/process';

/** An OTLP endpoint that refuses every export (500), as a collector that is down behind its proxy does. */
async function refusingCollector(): Promise<{ server: Server; url: string; exports: () => number }> {
  let exports = 0;
  const server = createServer((req, res) => {
    exports++;
    req.resume();
    req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end('collector down'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, exports: () => exports };
}

describe('a process stops cleanly when its spans cannot be exported', () => {
  it('warns, without the endpoint, and resolves: the stop does not fail', async () => {
    const collector = await refusingCollector();
    try {
      const env = loadEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `${collector.url}/otlp`, OTEL_SERVICE_NAME: 'stop-test' });
      const telemetry = processTelemetry(env, 'stop-test');
      const warn = jest.spyOn(telemetry.logger, 'warn').mockImplementation(() => undefined);
      trace.getTracer('stop-test').startSpan('buffered at stop').end();

      await expect(telemetry.shutdown()).resolves.toBeUndefined();

      expect(collector.exports()).toBeGreaterThanOrEqual(1);
      expect(warn).toHaveBeenCalledTimes(1);
      const [fields, message] = warn.mock.calls[0] as unknown as [Record<string, unknown>, string];
      expect(message).toMatch(/not exported/);
      expect(typeof fields['reason']).toBe('string');
      expect(JSON.stringify(warn.mock.calls)).not.toContain(collector.url);
      // The provider is released: a later process-wide setup registers afresh.
      expect(processTelemetry(loadEnv({}), 'after').tracing).toBeNull();
    } finally {
      await new Promise((resolve) => collector.server.close(resolve));
    }
  });
});
