import { Resource } from '@opentelemetry/resources';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { WorkerOptions } from '@temporalio/worker';
import type { WorkflowBundleVariant } from '../worker/bundle';
import { stepObserver, type StepObserverDeps } from './activity-interceptor';
import { activeTracing, noopSpanProcessor } from './tracing';

/**
 * The workflow side of tracing: spans for the turn workflow and the activities it schedules, sent
 * out of the sandbox through the `exporter` sink. Built into the `traced` workflow bundle only.
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** The workflow bundle a worker of this process runs: traced while tracing is on (worker/bundle.ts says why). */
export function workflowBundleVariant(): WorkflowBundleVariant {
  return activeTracing() ? 'traced' : 'plain';
}

/** The workflow interceptor modules built into a bundle variant. */
export function workflowInterceptorModules(variant: WorkflowBundleVariant): string[] {
  return variant === 'traced' ? [WORKFLOW_TRACING_MODULE] : [];
}

/**
 * Interceptors and sinks for a turn worker. Activities: the OpenTelemetry interceptor first (when
 * tracing is on), so its span is active inside the step observer. The exporter sink is always
 * registered: CONVENGINE_WORKFLOW_BUNDLE may name a traced bundle while tracing is off.
 */
export function workerInstrumentation(
  deps: StepObserverDeps,
  source: 'bundle' | 'sources'
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  const tracing = activeTracing();
  const tracedActivities = (ctx: ActivityContext) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });
  return {
    interceptors: {
      activity: [...(tracing ? [tracedActivities] : []), stepObserver(deps)],
      workflowModules: tracing && source === 'sources' ? [WORKFLOW_TRACING_MODULE] : [],
    },
    sinks: workflowExporterSinks(),
  };
}

/**
 * The `exporter` sink the bundle's workflow interceptors call: to the active tracer, or to nothing.
 * Every worker that runs our bundle registers it (turn workers, `convengine doctor`'s probe worker).
 */
export function workflowExporterSinks(): NonNullable<WorkerOptions['sinks']> {
  const tracing = activeTracing();
  return {
    exporter: makeWorkflowExporter(tracing?.spanProcessor ?? noopSpanProcessor, tracing?.resource ?? Resource.empty()),
  };
}
