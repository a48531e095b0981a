import { trace } from '@opentelemetry/api';
import type { LlmCallRecord } from '../activities/llm/anthropic-client';
import type { LlmClient, LlmRequest } from '../core/llm';
import type { Logger } from './logger';
import type { WorkerMetrics } from './metrics';
import { inSpan } from './tracing';

/** Each LLM call in its own span (child of the step activity's span), named by call kind. */
export function tracedLlmClient(client: LlmClient): LlmClient {
  const attributes = (req: LlmRequest) => ({
    'convengine.llm.kind': req.kind,
    'convengine.intent': req.meta.intent,
    'convengine.state': req.meta.state,
  });
  return {
    generateText: (req) => inSpan(`llm ${req.kind}`, attributes(req), () => client.generateText(req)),
    generateJson: (req) => inSpan(`llm ${req.kind}`, attributes(req), () => client.generateJson(req)),
  };
}

export interface LlmCallObserverDeps {
  logger: Logger;
  metrics: WorkerMetrics;
  /**
   * `llm call failed` says the failure's kind only (`invalid output: schema mismatch`), never what the model wrote
   * (a schema mismatch's paths name its keys): withoutFailureText(env), observability/failure-outline.ts.
   */
  withoutFailureText?: boolean;
}

/**
 * Receives the client's one record per call (inside the call's span): counts calls, errors,
 * latency and tokens, puts model and tokens on the span, and logs one line without prompt or answer.
 */
export function llmCallObserver(deps: LlmCallObserverDeps): (entry: LlmCallRecord) => void {
  const { logger, metrics } = deps;
  return (entry) => {
    const kind = entry.request.kind;
    metrics.llmCalls.inc({ kind, outcome: entry.success ? 'ok' : 'error' });
    metrics.llmDuration.observe({ kind }, entry.latencyMs / 1000);
    if (!entry.success) metrics.llmErrors.inc({ kind });
    if (entry.usage) {
      metrics.llmTokens.inc({ kind, direction: 'input' }, entry.usage.inputTokens);
      metrics.llmTokens.inc({ kind, direction: 'output' }, entry.usage.outputTokens);
    }
    trace.getActiveSpan()?.setAttributes({
      'convengine.llm.model': entry.model,
      'convengine.llm.success': entry.success,
      ...(entry.usage
        ? {
            'convengine.llm.input_tokens': entry.usage.inputTokens,
            'convengine.llm.output_tokens': entry.usage.outputTokens,
          }
        : {}),
    });
    const line = { kind, model: entry.model, latencyMs: Math.round(entry.latencyMs), usage: entry.usage };
    if (entry.success) logger.info(line, 'llm call');
    else
      logger.warn(
        { ...line, error: deps.withoutFailureText ? entry.errorKind : entry.errorMessage },
        'llm call failed'
      );
  };
}
