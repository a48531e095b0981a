import { createLogger } from '../../observability/logger';
import { captureLog } from '../support/log-capture';
import { parseMetrics, sumOf } from '../support/prometheus-text';
import { TelemetryStack } from '../support/telemetry-stack';
import { usingRealServer } from '../support/temporal';

/** GET a probe route: status and body text. */
async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

const scrape = async (baseUrl: string) => parseMetrics((await get(`${baseUrl}/metrics`)).text);

describe('metrics, health and logs of the API and the worker', () => {
  let stack: TelemetryStack;
  const workerLog = captureLog();

  beforeAll(async () => {
    stack = await TelemetryStack.start({
      workerLogger: createLogger({ level: 'info', format: 'json', name: 'worker', destination: workerLog.stream }),
    });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  it("serves /healthz and /readyz (database, Temporal, worker polling; the worker its SQL tools' login) on both", async () => {
    for (const base of [stack.api.url, stack.workerProbeUrl]) {
      expect(await get(`${base}/healthz`)).toEqual({ status: 200, text: JSON.stringify({ status: 'ok' }) });
    }
    const api = await get(`${stack.api.url}/readyz`);
    expect(api.status).toBe(200);
    expect(JSON.parse(api.text)).toEqual({
      status: 'ready',
      checks: { database: 'ok', temporal: 'ok', worker: 'ok' },
    });
    const worker = await get(`${stack.workerProbeUrl}/readyz`);
    expect(worker.status).toBe(200);
    expect(JSON.parse(worker.text)).toEqual({
      status: 'ready',
      checks: { database: 'ok', temporal: 'ok', tools: 'ok', worker: 'ok' },
    });
  });

  it('moves the turn, step, tool and LLM counters for a seed turn', async () => {
    const apiBefore = await scrape(stack.api.url);
    const workerBefore = await scrape(stack.workerProbeUrl);

    const turn = await stack.seedTurn();
    expect(turn.status).toBe(200);
    expect(turn.body).toMatchObject({ intent: 'ORDER_DIAGNOSTICS', state: 'COMPLETED' });

    const apiAfter = await scrape(stack.api.url);
    const workerAfter = await scrape(stack.workerProbeUrl);
    const delta = (before: Map<string, number>, after: Map<string, number>, name: string, labels = {}) =>
      sumOf(after, name, labels) - sumOf(before, name, labels);

    expect(delta(apiBefore, apiAfter, 'convengine_turn_duration_seconds_count', { outcome: 'COMPLETED' })).toBe(1);
    // A count over the namespace: on the shared real server of test:temporal other files park approvals too.
    const pending = sumOf(apiAfter, 'convengine_pending_approvals');
    if (usingRealServer) expect(pending).toBeGreaterThanOrEqual(0);
    else expect(pending).toBe(0);
    expect(apiAfter.has('convengine_pending_approvals{component="api"}')).toBe(true);
    // The per-process limits are declared at 0 before their first use, so dashboards and alerts find them.
    const apiText = (await get(`${stack.api.url}/metrics`)).text;
    for (const limit of ['audit_streams', 'whatif']) {
      expect(apiText).toMatch(new RegExp(`^convengine_api_limit_in_use\\{[^}]*limit="${limit}"[^}]*\\} 0$`, 'm'));
    }

    const stepsRun = delta(workerBefore, workerAfter, 'convengine_step_duration_seconds_count', { outcome: 'ok' });
    expect(stepsRun).toBeGreaterThanOrEqual(5);
    expect(
      delta(workerBefore, workerAfter, 'convengine_step_duration_seconds_count', { step: 'McpPlan' })
    ).toBeGreaterThan(0);
    expect(delta(workerBefore, workerAfter, 'convengine_tool_calls_total', { outcome: 'ok' })).toBe(2);
    const llmCalls = delta(workerBefore, workerAfter, 'convengine_llm_calls_total', { outcome: 'ok' });
    expect(llmCalls).toBeGreaterThanOrEqual(2);
    expect(delta(workerBefore, workerAfter, 'convengine_llm_call_duration_seconds_count')).toBe(llmCalls);
    expect(delta(workerBefore, workerAfter, 'convengine_llm_tokens_total', { direction: 'output' })).toBeGreaterThan(0);
    expect(delta(workerBefore, workerAfter, 'convengine_llm_errors_total')).toBe(0);
    // Every step and LLM line of the turn carries the turn's identity; no prompt, answer or tool payload.
    const workflowId = (turn.body['turn'] as { workflowId: string }).workflowId;
    const turnLines = workerLog.lines().filter((l) => l['workflowId'] === workflowId);
    // At info, a step alone writes one line, a step run one line naming the steps it ran.
    const steps = turnLines.filter((l) => l['msg'] === 'step completed');
    const runs = turnLines.filter((l) => l['msg'] === 'step run completed');
    expect(runs.length).toBeGreaterThan(0);
    expect(steps.length + runs.flatMap((l) => l['steps'] as string[]).length).toBe(stepsRun);
    for (const line of [...steps, ...runs, ...turnLines.filter((l) => l['msg'] === 'llm call')]) {
      expect(line).toMatchObject({ name: 'worker', conversationId: expect.any(String), turn: 1, attempt: 1 });
      expect(typeof line['step']).toBe('string');
    }
    expect(turnLines.filter((l) => l['msg'] === 'llm call').length).toBe(llmCalls);
    expect(workerLog.raw()).not.toContain('ORD-7017 is submitted');

    // Declared before their first increment, so dashboards and alerts find them.
    const workerText = (await get(`${stack.workerProbeUrl}/metrics`)).text;
    expect(workerText).toContain('# TYPE convengine_guardrail_blocks_total counter');
    expect(workerText).toContain('convengine_loop_limit_stops_total{component="worker"} 0');
    expect(workerText).toContain('convengine_audit_rows_rate_limited_total{component="worker"} 0');
    // The SDK's own worker metrics, from its Prometheus exporter, on the same scrape.
    expect(sumOf(workerAfter, 'temporal_num_pollers', { poller_type: 'workflow_task' })).toBeGreaterThan(0);
    // Every series has its component label, the SDK's too.
    const unlabelled = [...workerAfter.keys()].filter((series) => !series.includes('component="worker"'));
    expect(unlabelled).toEqual([]);
    expect(sumOf(workerAfter, 'temporal_activity_execution_latency_count')).toBeGreaterThan(0);
  });
});
