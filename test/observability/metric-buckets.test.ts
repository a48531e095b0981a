import type { Histogram } from 'prom-client';
import { LLM_TIMEOUT_DEFAULT_MS, TURN_REPLY_TIMEOUT_DEFAULT_MS } from '../../config/env';
import { BOOKKEEPING_TIMEOUT_MS, MODEL_TIMEOUT_MS, TOOL_TIMEOUT_DEFAULT_MS } from '../../core/turn/steps';
import { createApiMetrics, createWorkerMetrics } from '../../observability/metrics';

/** A bucket sample's bound, as prom-client labels it. */
const leOf = (sample: { labels: object }) => (sample.labels as { le?: string | number }).le;

/** The finite `le` bounds a histogram exports, in seconds, after one observation gives it its series. */
async function bounds<T extends string>(
  histogram: Histogram<T>,
  labels: Partial<Record<T, string>>
): Promise<number[]> {
  histogram.observe(labels, 0.001);
  const values = (await histogram.get()).values.filter((v) => v.metricName?.endsWith('_bucket'));
  return values.map((v) => Number(leOf(v))).filter((le) => Number.isFinite(le));
}

/** How many observations fell into no finite bucket (only +Inf holds them). */
async function beyondLastBound<T extends string>(histogram: Histogram<T>): Promise<number> {
  const values = (await histogram.get()).values;
  const count = values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0;
  const finite = values.filter((v) => v.metricName?.endsWith('_bucket') && leOf(v) !== '+Inf');
  return count - Math.max(0, ...finite.map((v) => v.value));
}

const seconds = (ms: number) => ms / 1000;

/** The latency histograms reach the limits that bound what they measure, each limit a bucket bound of its own. */
describe('histogram buckets (observability/metrics.ts)', () => {
  it("steps: a bookkeeping step's 30 s, a tool call's 60 s and a model step's 240 s attempt", async () => {
    const { stepDuration } = createWorkerMetrics();
    const les = await bounds(stepDuration, { step: 'McpPlan', outcome: 'ok' });
    for (const limit of [BOOKKEEPING_TIMEOUT_MS, TOOL_TIMEOUT_DEFAULT_MS, MODEL_TIMEOUT_MS]) {
      expect(les).toContain(seconds(limit));
    }
    expect(les).toEqual(expect.arrayContaining([30, 60, 120, 240]));
    expect(Math.max(...les)).toBe(240);
    // A model step cut off at its start-to-close is in a bucket, not only in +Inf.
    stepDuration.observe({ step: 'McpPlan', outcome: 'error' }, 239.9);
    expect(await beyondLastBound(stepDuration)).toBe(0);
  });

  it('LLM calls: LLM_TIMEOUT_MS (the default, or as set) and the 240 s all tries of a call fit in', async () => {
    expect(await bounds(createWorkerMetrics().llmDuration, { kind: 'PLAN' })).toEqual(
      expect.arrayContaining([seconds(LLM_TIMEOUT_DEFAULT_MS), 60, 120, seconds(MODEL_TIMEOUT_MS)])
    );
    const { llmDuration } = createWorkerMetrics({ llmTimeoutMs: 90_000 });
    expect(await bounds(llmDuration, { kind: 'PLAN' })).toEqual(expect.arrayContaining([90, 240]));
    // Three tries of 76 s: the longest call the model step lets the SDK make.
    llmDuration.observe({ kind: 'PLAN' }, 3 * 76.6);
    expect(await beyondLastBound(llmDuration)).toBe(0);
  });

  it('turns: TURN_REPLY_TIMEOUT_MS (the default, or as set), after which the caller gets 202 RUNNING', async () => {
    const defaults = await bounds(createApiMetrics().turnDuration, { outcome: 'COMPLETED' });
    expect(defaults).toEqual(expect.arrayContaining([seconds(TURN_REPLY_TIMEOUT_DEFAULT_MS), 60, 120]));
    const { turnDuration } = createApiMetrics(undefined, { turnReplyTimeoutMs: 300_000 });
    expect(await bounds(turnDuration, { outcome: 'RUNNING' })).toEqual(expect.arrayContaining([60, 120, 300]));
  });
});
