import { Resource } from '@opentelemetry/resources';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { WorkerOptions } from '@temporalio/worker';
import { stepObserver, type StepObserverDeps } from './activity-interceptor';
import { activeTracing, noopSpanProcessor } from './tracing';

/**
 * The workflow side of tracing: spans for the turn workflow and the activities it schedules, sent
 * out of the sandbox through the `exporter` sink. `npm run bundle:workflows` builds it into the bundle.
 */
export const WORKFLOW_TRACING_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * Interceptors and sinks for a turn worker. Activities: the OpenTelemetry interceptor first (when
 * tracing is on), so its span is active inside the step observer. The exporter sink is always
 * registered, because a pre-built bundle carries the workflow interceptors whether tracing is on or not.
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
