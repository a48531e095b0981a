import { randomUUID } from 'node:crypto';
import { verbose } from '../../db/seed/builders';
import { watchProgress } from '../../demo/progress-stream';
import { ApiHarness } from '../support/api-harness';
import { answer, callTool, orderConfig } from '../support/order-config';
import { usingRealServer } from '../support/temporal';

const MESSAGE = 'Check order ORD-7017 status.';
const LOOKING_UP = 'Looking up {{tool_code}} for {{intent}}.';

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
  at: number;
}

/**
 * Reads the conversation's SSE stream: retries the 404 of a conversation that does not exist yet,
 * and resumes with Last-Event-ID when the server ends the stream.
 */
function readStream(baseUrl: string, id: string, signal: AbortSignal, events: SseEvent[]): Promise<void> {
  let lastId = '0';
  return (async () => {
    for (;;) {
      const headers = { 'last-event-id': lastId };
      const res = await fetch(`${baseUrl}/api/v1/conversation/${id}/stream`, { signal, headers });
      if (res.status === 404) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      let buffer = '';
      for await (const chunk of res.body as ReadableStream<Uint8Array>) {
        buffer += Buffer.from(chunk).toString('utf8');
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? '';
          lastId = lines.find((l) => l.startsWith('id: '))?.slice(4) ?? lastId;
          const data = JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '{}');
          events.push({ event, data, at: Date.now() });
        }
      }
    }
  })().catch(() => undefined);
}

/**
 * Issue #21, item 4: while a planner turn runs, its progress messages (ce_verbose) stream as
 * VERBOSE_PROGRESS events and the latest one is the turn workflow's current details — what the
 * Temporal UI shows (`__temporal_workflow_metadata`), on our dev server and on the real one.
 */
describe(`progress messages of a running turn, Temporal: ${usingRealServer ? 'real server' : 'dev server'}`, () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await ApiHarness.start();
  });
  afterAll(async () => h?.stop());

  it('streams VERBOSE_PROGRESS before the reply and shows the message as the workflow current details', async () => {
    const rows = orderConfig();
    await h.wf.mcp.configure({
      ...rows,
      verboses: [
        verbose({
          verboseId: 1,
          intentCode: 'ANY',
          stateCode: 'ANY',
          stepValue: 'McpToolStep',
          determinant: 'MCP_TOOL_CALL',
          toolCode: 'mock.order.status',
          message: LOOKING_UP,
          priority: 10,
        }),
      ],
    });
    // The answering planner call takes a while: the turn is still running after the tool call.
    h.wf.mcp.llm.setScript([
      callTool('mock.order.status', { orderId: 'ORD-7017' }),
      { ...answer('Order submitted.'), delayMs: 2500 },
    ]);
    const conversationId = randomUUID();
    const events: SseEvent[] = [];
    const stop = new AbortController();
    const reading = readStream(h.baseUrl, conversationId, stop.signal, events);
    const reply = h.request('POST', '/api/v1/conversation/message', { json: { conversationId, message: MESSAGE } });

    const expected = 'Looking up mock.order.status for ORDER_DIAGNOSTICS.';
    const handle = h.wf.client.workflow.getHandle(`turn-${conversationId}-1`);
    let details = '';
    for (let i = 0; i < 100 && details !== expected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const metadata = await handle
        .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
        .catch(() => ({ currentDetails: '' }));
      details = metadata.currentDetails ?? '';
    }
    expect(details).toBe(expected);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const answered = await reply;
    const repliedAt = Date.now();
    expect(answered.json()).toMatchObject({ state: 'COMPLETED', payload: { value: 'Done: Order submitted.' } });
    stop.abort();
    await reading;
    const progress = events.filter((e) => e.event === 'VERBOSE_PROGRESS');
    expect(progress).toHaveLength(1);
    expect(progress[0]?.at).toBeLessThan(repliedAt);
    expect(progress[0]?.data).toMatchObject({
      eventType: 'VERBOSE_PROGRESS',
      stage: 'VERBOSE_PROGRESS',
      verbose: {
        verboseId: 1,
        eventType: 'VERBOSE_PROGRESS',
        stepName: 'McpToolStep',
        determinant: 'MCP_TOOL_CALL',
        toolCode: 'mock.order.status',
        level: 'INFO',
        text: expected,
        metadata: { tool_code: 'mock.order.status', args: { orderId: 'ORD-7017' } },
      },
    });
    // The demo's reader sees the same message, and nothing twice when it resumes.
    const seen: string[] = [];
    const last = await watchProgress(h.baseUrl, conversationId, {}, 0, (text) => seen.push(text)).stop();
    expect(seen).toEqual([expected]);
    expect(last).toBeGreaterThan(0);
    const again: string[] = [];
    await watchProgress(h.baseUrl, conversationId, {}, last, (text) => again.push(text)).stop();
    expect(again).toEqual([]);
  });
});
