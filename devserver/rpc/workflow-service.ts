/** The WorkflowService methods the dev server implements, mapped to engine operations. */
import { invalidArgument, requireString } from '../errors';
import type { Message } from '../proto/types';
import { pauseActivity, resetActivity, unpauseActivity } from '../engine/activity-control';
import {
  recordActivityTaskHeartbeat,
  recordActivityTaskHeartbeatById,
  respondActivityTask,
} from '../engine/activity-ops';
import { describeWorkflowExecution } from '../engine/describe';
import type { Engine } from '../engine/engine';
import { getWorkflowExecutionHistory, getWorkflowExecutionHistoryReverse } from '../engine/history-api';
import type { PollCall, TaskQueueType } from '../engine/matching';
import { queryWorkflow, respondQueryTaskCompleted } from '../engine/queries';
import {
  pollWorkflowExecutionUpdate,
  updateWorkflowExecution,
  type UpdateWorkflowExecutionRequest,
} from '../engine/updates';
import { countWorkflowExecutions, listWorkflowExecutions } from '../engine/visibility';
import { completeWorkflowTask, failWorkflowTask } from '../engine/workflow-task-completion';
import { unstick } from '../engine/workflow-task';
import {
  deleteWorkflowExecution,
  requestCancelWorkflowExecution,
  signalWithStartWorkflowExecution,
  signalWorkflowExecution,
  terminateWorkflowExecution,
} from '../engine/workflow-ops';
import {
  startWorkflowExecution,
  startWorkflowExecutionRpc,
  type StartWorkflowExecutionRequest,
} from '../engine/workflow-start';
import type { RpcHandler } from '../grpc/service';

type Handlers = Record<string, RpcHandler>;

async function poll(engine: Engine, type: TaskQueueType, request: Message, call: PollCall): Promise<unknown> {
  const name = requireString((request.taskQueue as { name?: string } | undefined)?.name, 'TaskQueue');
  const response = await engine.matching.poll(type, name, String(request.identity ?? ''), call);
  return response ?? {};
}

function shutdownWorker(engine: Engine, request: Message): Message {
  const stickyQueue = request.stickyTaskQueue as string | undefined;
  if (!stickyQueue) return {};
  engine.transact(() => {
    for (const run of engine.runs.values()) if (run.sticky?.queue === stickyQueue) unstick(engine, run);
    engine.matching.drop('workflow', stickyQueue);
  });
  return {};
}

/** Update-with-start: a start (usually USE_EXISTING) followed by an update on the resulting run. */
async function executeMultiOperation(engine: Engine, request: Message, call: PollCall): Promise<Message> {
  const operations = (request.operations ?? []) as { startWorkflow?: Message; updateWorkflow?: Message }[];
  const start = operations[0]?.startWorkflow;
  const update = operations[1]?.updateWorkflow;
  if (operations.length !== 2 || !start || !update) {
    throw invalidArgument('ExecuteMultiOperation supports exactly [startWorkflow, updateWorkflow].');
  }
  const started = startWorkflowExecution(engine, start as StartWorkflowExecutionRequest);
  const updateRequest: UpdateWorkflowExecutionRequest = {
    ...(update as UpdateWorkflowExecutionRequest),
    workflowExecution: { workflowId: String(start.workflowId), runId: String(started.runId) },
  };
  const updated = await updateWorkflowExecution(engine, updateRequest, call);
  return { responses: [{ startWorkflow: started }, { updateWorkflow: updated }] };
}

function taskHandlers(engine: Engine): Handlers {
  return {
    PollWorkflowTaskQueue: (request, call) => poll(engine, 'workflow', request, call),
    PollActivityTaskQueue: (request, call) => poll(engine, 'activity', request, call),
    RespondWorkflowTaskCompleted: (request) => engine.transact(() => completeWorkflowTask(engine, request)),
    RespondWorkflowTaskFailed: (request) => engine.transact(() => failWorkflowTask(engine, request)),
    RespondQueryTaskCompleted: (request) => engine.transact(() => respondQueryTaskCompleted(engine, request)),
    RecordActivityTaskHeartbeat: (request) => recordActivityTaskHeartbeat(engine, request),
    RecordActivityTaskHeartbeatById: (request) => recordActivityTaskHeartbeatById(engine, request),
    RespondActivityTaskCompleted: (request) => respondActivityTask(engine, 'completed', request, false),
    RespondActivityTaskCompletedById: (request) => respondActivityTask(engine, 'completed', request, true),
    RespondActivityTaskFailed: (request) => respondActivityTask(engine, 'failed', request, false),
    RespondActivityTaskFailedById: (request) => respondActivityTask(engine, 'failed', request, true),
    RespondActivityTaskCanceled: (request) => respondActivityTask(engine, 'canceled', request, false),
    RespondActivityTaskCanceledById: (request) => respondActivityTask(engine, 'canceled', request, true),
    ShutdownWorker: (request) => shutdownWorker(engine, request),
    ResetStickyTaskQueue: (request) =>
      engine.transact(() => {
        unstick(engine, engine.requireRun(request.execution as Message));
        return {};
      }),
  };
}

function clientHandlers(engine: Engine): Handlers {
  return {
    StartWorkflowExecution: (request) => startWorkflowExecutionRpc(engine, request),
    SignalWithStartWorkflowExecution: (request) => signalWithStartWorkflowExecution(engine, request),
    SignalWorkflowExecution: (request) => signalWorkflowExecution(engine, request),
    RequestCancelWorkflowExecution: (request) => requestCancelWorkflowExecution(engine, request),
    TerminateWorkflowExecution: (request) => terminateWorkflowExecution(engine, request),
    DeleteWorkflowExecution: (request) => deleteWorkflowExecution(engine, request),
    DescribeWorkflowExecution: (request) => describeWorkflowExecution(engine, request),
    GetWorkflowExecutionHistory: (request, call) => getWorkflowExecutionHistory(engine, request, call),
    GetWorkflowExecutionHistoryReverse: (request) => getWorkflowExecutionHistoryReverse(engine, request),
    QueryWorkflow: (request, call) => queryWorkflow(engine, request, call),
    UpdateWorkflowExecution: (request, call) => updateWorkflowExecution(engine, request, call),
    PollWorkflowExecutionUpdate: (request, call) => pollWorkflowExecutionUpdate(engine, request, call),
    ExecuteMultiOperation: (request, call) => executeMultiOperation(engine, request, call),
    PauseActivity: (request) => pauseActivity(engine, request),
    UnpauseActivity: (request) => unpauseActivity(engine, request),
    ResetActivity: (request) => resetActivity(engine, request),
    ListWorkflowExecutions: (request) => listWorkflowExecutions(engine, request),
    ScanWorkflowExecutions: (request) => listWorkflowExecutions(engine, request),
    CountWorkflowExecutions: (request) => countWorkflowExecutions(engine, request),
  };
}

export function workflowServiceHandlers(engine: Engine): Handlers {
  return { ...taskHandlers(engine), ...clientHandlers(engine) };
}
