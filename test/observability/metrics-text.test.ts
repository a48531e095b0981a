/**
 * /metrics' text: a gauge that cannot be read (convengine_pending_approvals while Temporal does not answer) is NaN,
 * spelled as the Prometheus text format spells it. prom-client writes `Nan`, which Prometheus's parser takes but the
 * format does not define, and docs/operations.md promised NaN.
 */
import { Gauge, Registry } from 'prom-client';
import { metricsText } from '../../observability/probe-server';

test('a NaN sample reads NaN, and a label value or help text that ends in " Nan" is left as it is', async () => {
  const registry = new Registry();
  const gauge = new Gauge({
    name: 'unread',
    help: 'Read as Nan',
    labelNames: ['said'],
    registers: [registry],
  });
  gauge.set({ said: 'a Nan' }, Number.NaN);
  gauge.set({ said: 'ok' }, 1);
  const lines = (await metricsText(registry)).split('\n');
  expect(lines).toContain('unread{said="a Nan"} NaN');
  expect(lines).toContain('unread{said="ok"} 1');
  expect(lines).toContain('# HELP unread Read as Nan');
});
