/**
 * #23: the worker asks for eager activity execution, and on the shipped dynamic config the real
 * server grants it. Eagerly dispatched activity tasks arrive in the workflow-task completion reply,
 * not from a poll: the SDK's own metrics count received tasks (`activity_task_received`) with an
 * `eager` label, next to executed ones (`activity_execution_latency`), so a worker that stopped
 * asking would show every executed activity as polled.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../db/embedded/ports';
import { DEMO_MESSAGES as M } from '../../demo/conversations';
import { ConvengineProcess } from '../support/child-processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { parseMetrics, sumOf } from '../support/prometheus-text';

jest.setTimeout(240_000);

async function post(apiUrl: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${apiUrl}/api/v1/conversation/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('eager activity execution on the real server with the shipped dynamic config', () => {
  let tdb: TestDatabase;
  let stack: ConvengineProcess | undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase();
  });
  afterAll(async () => {
    await stack?.stop(30_000);
    await tdb?.drop();
  });

  it('runs regular activities handed over in the workflow task reply, not polled one by one', async () => {
    const sdkMetrics = `127.0.0.1:${await freePort()}`;
    const home = mkdtempSync(join(tmpdir(), 'ce-eager-'));
    stack = await ConvengineProcess.start(
      ['start', '--temporal=cli', '--port', '0', '--temporal-port', '0', '--home', home],
      {
        name: 'start-eager',
        ready: /Try: npx convengine demo/,
        readyTimeoutMs: 180_000,
        env: { DATABASE_URL: tdb.url, TEMPORAL_ADDRESS: '', TEMPORAL_SDK_METRICS_ADDRESS: sdkMetrics },
      }
    );
    const apiUrl = stack.match(/API (http:\/\/127\.0\.0\.1:\d+)/) as string;
    // The seed's Example 3: the third turn is a planner loop with four tool calls, each a regular activity.
    const first = await post(apiUrl, { message: M.loanRequest });
    for (const message of [M.loanEdit, M.loanConfirm])
      await post(apiUrl, { conversationId: first['conversationId'], message });

    const samples = parseMetrics(await (await fetch(`http://${sdkMetrics}/metrics`)).text());
    const executed = sumOf(samples, 'temporal_activity_execution_latency_count');
    const received = sumOf(samples, 'temporal_activity_task_received_total');
    const eager = sumOf(samples, 'temporal_activity_task_received_total', { eager: 'true' });
    expect(executed).toBeGreaterThanOrEqual(5);
    expect(received).toBe(executed);
    // Most are eager; the server may still refuse one when the worker has no free slot at that moment.
    expect(eager).toBeGreaterThan(executed / 2);
  });
});
