import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { setupTracing } from '../observability/tracing';
import { TelemetryStack } from '../test/support/telemetry-stack';

/**
 * `npx tsx scripts/trace-picture.ts`: runs the order-diagnostics seed turn through the API and a
 * worker with an in-memory span exporter, and draws its trace as a waterfall SVG for
 * docs/operations.md (docs/images/sample-trace.svg). Needs DATABASE_URL (the test database).
 */
const OUT = join(__dirname, '..', 'docs', 'images', 'sample-trace.svg');
const SHOWN = ['convengine.intent', 'convengine.state', 'convengine.tool.code', 'convengine.guardrail.outcome'];
const ROW = 22;
const LABEL_WIDTH = 470;
const BAR_WIDTH = 520;

const nanos = (t: [number, number]) => BigInt(t[0]) * 1_000_000_000n + BigInt(t[1]);
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function ordered(spans: ReadableSpan[]): { span: ReadableSpan; depth: number }[] {
  const byParent = new Map<string, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) ? s.parentSpanId : '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), s]);
  }
  const out: { span: ReadableSpan; depth: number }[] = [];
  const walk = (parent: string, depth: number) => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => Number(nanos(a.startTime) - nanos(b.startTime)));
    for (const child of children) {
      out.push({ span: child, depth });
      walk(child.spanContext().spanId, depth + 1);
    }
  };
  walk('', 0);
  return out;
}

function svg(spans: ReadableSpan[]): string {
  const rows = ordered(spans);
  const start = rows.reduce(
    (m, r) => (nanos(r.span.startTime) < m ? nanos(r.span.startTime) : m),
    nanos(rows[0]!.span.startTime)
  );
  const end = rows.reduce((m, r) => (nanos(r.span.endTime) > m ? nanos(r.span.endTime) : m), 0n);
  const total = Number(end - start) || 1;
  const x = (t: bigint) => LABEL_WIDTH + (Number(t - start) / total) * BAR_WIDTH;
  const lines = rows.map(({ span, depth }, i) => {
    const y = 40 + i * ROW;
    const attrs = SHOWN.filter((k) => span.attributes[k] !== undefined)
      .map((k) => `${k.replace('convengine.', '')}=${String(span.attributes[k])}`)
      .join(' ');
    const x0 = x(nanos(span.startTime));
    const width = Math.max(2, x(nanos(span.endTime)) - x0);
    const ms = (Number(nanos(span.endTime) - nanos(span.startTime)) / 1e6).toFixed(1);
    return [
      `<text x="${8 + depth * 14}" y="${y + 14}" class="name">${escape(span.name)}</text>`,
      attrs ? `<text x="${LABEL_WIDTH - 6}" y="${y + 14}" class="attrs" text-anchor="end">${escape(attrs)}</text>` : '',
      `<rect x="${x0.toFixed(1)}" y="${y + 4}" width="${width.toFixed(1)}" height="${ROW - 8}" class="d${Math.min(depth, 6)}"/>`,
      `<text x="${(x0 + width + 4).toFixed(1)}" y="${y + 14}" class="ms">${ms} ms</text>`,
    ].join('');
  });
  const height = 50 + rows.length * ROW;
  const width = LABEL_WIDTH + BAR_WIDTH + 80;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
<style>text{font:12px monospace;fill:#222}.attrs{fill:#666;font-size:10px}.ms{fill:#555;font-size:10px}.title{font-size:13px;font-weight:bold}
.d0{fill:#4e79a7}.d1{fill:#59a14f}.d2{fill:#9c755f}.d3{fill:#f28e2b}.d4{fill:#e15759}.d5{fill:#76b7b2}.d6{fill:#b07aa1}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="8" y="22" class="title">One turn, one trace: POST /api/v1/conversation/message (order-diagnostics seed turn), ${rows.length} spans, ${(total / 1e6).toFixed(0)} ms</text>
${lines.join('\n')}
</svg>
`;
}

async function main(): Promise<void> {
  const exporter = new InMemorySpanExporter();
  const tracing = setupTracing({ serviceName: 'convengine', spanProcessor: new SimpleSpanProcessor(exporter) });
  const stack = await TelemetryStack.start();
  try {
    const turn = await stack.seedTurn();
    if (turn.status !== 200) throw new Error(`seed turn answered ${turn.status}`);
    for (let i = 0; i < 100 && !exporter.getFinishedSpans().some((s) => s.name.startsWith('POST ')); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 500));
    writeFileSync(OUT, svg(exporter.getFinishedSpans()));
    console.log(`wrote ${OUT} (${exporter.getFinishedSpans().length} spans)`);
  } finally {
    await stack.stop();
    await tracing?.shutdown();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
