import { TURN_REPLY_TIMEOUT_DEFAULT_MS } from '../../config/env';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createActivities, withStepRuns, type ActivityDeps } from '../../activities';
import type { TurnActivities } from '../../core/turn/activities';
import { TemporalTurnGateway } from '../../api/turns/gateway';
import type { TurnReply, TurnRequest } from '../../api/ports';
import { setupTemporalNamespace } from '../../cli/temporal/setup';
import { CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES } from '../../config/env';
import { closeSafeRetryInterceptor } from '../../config/temporal-retry';
import { engineDataConverter } from '../../db/data-converter';
import { failureSealer } from '../../activities/runtime/sealed-failure';
import type { PayloadKey } from '../../config/payload-keys';
import { stepObserver } from '../../observability/activity-interceptor';
import { installTemporalRuntime } from '../../observability/temporal-runtime';
import { silentLogger, type Logger } from '../../observability/logger';
import type { WorkerMetrics } from '../../observability/metrics';
import { turnWorkerIdentity } from '../../observability/turn-pollers';
import { workerAuditGate } from '../../worker/deps';
import { McpHarness } from './mcp-harness';
import { getTestTemporal, type TestTemporal } from './temporal';
import { testWorkflowBundle } from './workflow-bundle';

let runtimeInstalled = false;
/** The SDK's runtime logs at WARN, to the console; or, as a worker's, through `logger` (installTemporalRuntime). */
function quietRuntime(logger?: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  if (logger) installTemporalRuntime({ logger });
  else Runtime.install({ logger: new DefaultLogger('WARN') });
}

export interface WorkflowHarnessOptions {
  /** The worker's activities, from the real ones (`base`) and their dependencies. */
  activities?: (base: TurnActivities, deps: ActivityDeps) => TurnActivities;
  /** The keyless demo model of `convengine start` (PipelineHarness). */
  demoModel?: boolean;
  claimThresholdBytes?: number;
  /** PAYLOAD_ENCRYPTION_KEYS of the worker and both clients; unset: payloads go to Temporal unencrypted. */
  payloadEncryptionKeys?: PayloadKey[];
  observe?: { metrics: WorkerMetrics; logger?: Logger };
  /** A server the caller runs (and stops): the harness does not start one of its own. */
  temporal?: TestTemporal;
  /** The worker's task queue; default one of its own (`turns-<pid>-<time>`), so test files never share one. */
  taskQueue?: string;
}

/**
 * Everything a workflow test needs: the MCP harness (test database, scripted LLM through the real
 * SDK, demo tool server), a Temporal server (in-memory dev server, or TEMPORAL_ADDRESS), a real
 * worker running the turn workflow with the real activities, and the real gateway to start turns.
 */
export class WorkflowHarness {
  private running: Promise<void> | null;

  private constructor(
    readonly mcp: McpHarness,
    readonly temporal: TestTemporal,
    readonly client: Client,
    private current: Worker,
    readonly taskQueue: string,
    private readonly createWorker: (workflowBundle?: { code: string }, identity?: string) => Promise<Worker>,
    private readonly nativeConnection: NativeConnection,
    /** A client on the worker's own connection, as `convengine start` wires it (eager workflow start). */
    readonly workerClient: Client
  ) {
    this.running = current.run();
  }

  get worker(): Worker {
    return this.current;
  }

  /** Shuts the worker down, as a worker that went away: nothing polls the task queue until startWorker. */
  async stopWorker(): Promise<void> {
    if (!this.running) return;
    this.current.shutdown();
    await this.running;
    this.running = null;
  }

  /**
   * A new worker on the same task queue, as a worker that came back; `workflowBundle`: the workflow code it runs, as a
   * worker of another build (default the current code's), and `identity` the one it polls with (default this build's).
   */
  async startWorker(workflowBundle?: { code: string }, identity?: string): Promise<void> {
    if (this.running) return;
    this.current = await this.createWorker(workflowBundle, identity);
    this.running = this.current.run();
  }

  /**
   * `observe`: the worker counts, logs and traces its steps as a production worker does (the step
   * observer, and the audit gate that counts decisions), into these metrics and this logger, which
   * also takes the SDK's runtime logs when it is the first harness of the test file.
   */
  static async start(options: WorkflowHarnessOptions = {}): Promise<WorkflowHarness> {
    quietRuntime(options.observe?.logger);
    const mcp = await McpHarness.start({ demoModel: options.demoModel });
    const server = options.temporal ? { ...options.temporal, stop: async () => undefined } : await getTestTemporal();
    // As the API connects (config/temporal-client.ts): a console read still in flight when stop() closes this
    // connection (its browser gone, its handler running on) must not throw from its retry timer into the next file.
    const connection = await Connection.connect({
      address: server.address,
      interceptors: [closeSafeRetryInterceptor()],
    });
    const dataConverter = engineDataConverter(
      {
        CLAIM_CHECK_THRESHOLD_BYTES: options.claimThresholdBytes ?? CLAIM_CHECK_DEFAULT_THRESHOLD_BYTES,
        PAYLOAD_ENCRYPTION_KEYS: options.payloadEncryptionKeys,
      },
      mcp.deps.db
    );
    const client = new Client({ connection, namespace: server.namespace, dataConverter });
    await setupTemporalNamespace(connection, { namespace: server.namespace });
    const taskQueue = options.taskQueue ?? `turns-${process.pid}-${Date.now()}`;
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    // Activities resolve deps per call, so tests can swap tool handlers between turns.
    const observe = options.observe;
    const gate = observe ? workerAuditGate(observe.metrics) : null;
    const current = () => {
      const deps = gate ? { ...mcp.deps, audit: gate } : mcp.deps;
      const base = createActivities(deps);
      return options.activities ? withStepRuns(options.activities(base, deps), deps) : base;
    };
    const live: Record<string, (input: never) => Promise<unknown>> = {};
    for (const name of Object.keys(current())) {
      live[name] = (input) => (current()[name as keyof TurnActivities] as (i: never) => Promise<unknown>)(input);
    }
    const currentBundle = await testWorkflowBundle();
    const createWorker = (workflowBundle = currentBundle, identity = turnWorkerIdentity()) =>
      Worker.create({
        connection: nativeConnection,
        namespace: server.namespace,
        taskQueue,
        workflowBundle,
        activities: live,
        dataConverter,
        // Named as the turn worker names itself (worker/worker.ts): the decisions' gate counts only such workers.
        identity,
        // As a turn worker's (worker/worker.ts): with keys, failures leave sealed, outermost.
        interceptors: {
          activity: [
            ...(options.payloadEncryptionKeys ? [failureSealer] : []),
            ...(observe ? [stepObserver({ metrics: observe.metrics, logger: observe.logger ?? silentLogger() })] : []),
          ],
        },
      });
    const worker = await createWorker();
    const workerClient = new Client({ connection: nativeConnection, namespace: server.namespace, dataConverter });
    return new WorkflowHarness(mcp, server, client, worker, taskQueue, createWorker, nativeConnection, workerClient);
  }

  /** `decisionTimeoutMs`: OPERATOR_DECISION_TIMEOUT_MS (default 10 s). */
  gateway(options: { replyTimeoutMs?: number; decisionTimeoutMs?: number } = {}): TemporalTurnGateway {
    return new TemporalTurnGateway({
      client: this.client,
      db: this.mcp.deps.db,
      taskQueue: this.taskQueue,
      replyTimeoutMs: options.replyTimeoutMs ?? TURN_REPLY_TIMEOUT_DEFAULT_MS,
      ...(options.decisionTimeoutMs !== undefined ? { decisionTimeoutMs: options.decisionTimeoutMs } : {}),
    });
  }

  send(request: Partial<TurnRequest> & { message: string }): Promise<TurnReply> {
    return this.gateway().sendMessage({
      conversationId: request.conversationId ?? crypto.randomUUID(),
      message: request.message,
      inputParams: request.inputParams ?? {},
      reset: request.reset ?? false,
      idempotencyKey: request.idempotencyKey ?? null,
      requestContext: request.requestContext ?? {},
    });
  }

  /** The options that point `convengine sre` or `history` at this harness's server, namespace and task queue. */
  serverArgs(): string[] {
    const { address, namespace } = this.temporal;
    return ['--address', address, '--namespace', namespace, '--task-queue', this.taskQueue];
  }

  /** The events of a turn's (latest run) history. */
  async history(workflowId: string) {
    const history = await this.client.workflow.getHandle(workflowId).fetchHistory();
    return history.events ?? [];
  }

  async stop(): Promise<void> {
    await this.stopWorker();
    await this.nativeConnection.close();
    await this.client.connection.close();
    await this.temporal.stop();
    await this.mcp.stop();
  }
}
