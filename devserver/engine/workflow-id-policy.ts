/**
 * Which run a start resolves to when its workflow ID is taken: the same request again finds the run
 * it started; otherwise the conflict policy decides for a running run and the ID reuse policy for a
 * closed one.
 */
import { DevServerError, invalidArgument } from '../errors';
import { enums } from '../proto/types';
import type { Engine } from './engine';
import { terminateRun } from './executions';
import { isOpen, type RunState } from './state';

const REUSE = enums.WorkflowIdReusePolicy;
const CONFLICT = enums.WorkflowIdConflictPolicy;
const STATUS = enums.WorkflowExecutionStatus;

/** The fields of a start request that decide which run it resolves to. */
export interface WorkflowIdPolicies {
  workflowIdReusePolicy?: number;
  workflowIdConflictPolicy?: number;
  identity?: string;
}

function alreadyStarted(run: RunState, message: string): DevServerError {
  return new DevServerError('ALREADY_EXISTS', message, {
    typeName: 'temporal.api.errordetails.v1.WorkflowExecutionAlreadyStartedFailure',
    message: { startRequestId: run.startRequestId, runId: run.runId },
  });
}

export type Resolution = { kind: 'start' } | { kind: 'existing'; run: RunState; started: boolean };

/** The conflict policy in force; the legacy reuse policy TERMINATE_IF_RUNNING means TERMINATE_EXISTING. */
function effectiveConflictPolicy(request: WorkflowIdPolicies): number {
  const conflict = request.workflowIdConflictPolicy ?? CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED;
  if (request.workflowIdReusePolicy !== REUSE.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING) return conflict;
  if (conflict !== CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED) {
    throw invalidArgument(
      'WorkflowIdReusePolicy TERMINATE_IF_RUNNING cannot be used together with a WorkflowIdConflictPolicy.'
    );
  }
  return CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING;
}

function resolveRunning(engine: Engine, current: RunState, request: WorkflowIdPolicies): Resolution {
  const conflict = effectiveConflictPolicy(request);
  if (conflict === CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) {
    return { kind: 'existing', run: current, started: false };
  }
  if (conflict === CONFLICT.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING) {
    const reason = 'terminated by WorkflowIdConflictPolicy TERMINATE_EXISTING';
    terminateRun(engine, current, reason, undefined, request.identity ?? '');
    return { kind: 'start' };
  }
  throw alreadyStarted(
    current,
    `Workflow execution is already running. WorkflowId: ${current.workflowId}, RunId: ${current.runId}.`
  );
}

function resolveClosed(current: RunState, request: WorkflowIdPolicies): Resolution {
  const reuse = request.workflowIdReusePolicy ?? REUSE.WORKFLOW_ID_REUSE_POLICY_UNSPECIFIED;
  const workflowId = current.workflowId;
  if (reuse === REUSE.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE) {
    throw alreadyStarted(
      current,
      `Workflow execution already finished and WorkflowIdReusePolicy is REJECT_DUPLICATE. WorkflowId: ${workflowId}.`
    );
  }
  const succeeded =
    current.status === STATUS.WORKFLOW_EXECUTION_STATUS_COMPLETED ||
    current.status === STATUS.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW;
  if (reuse === REUSE.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY && succeeded) {
    throw alreadyStarted(
      current,
      'Workflow execution already finished successfully and WorkflowIdReusePolicy is ALLOW_DUPLICATE_FAILED_ONLY. ' +
        `WorkflowId: ${workflowId}.`
    );
  }
  return { kind: 'start' };
}

/** Applies request-ID dedupe and the ID reuse / conflict policies against the current run. */
export function resolveExisting(
  engine: Engine,
  workflowId: string,
  requestId: string,
  request: WorkflowIdPolicies
): Resolution {
  const current = engine.currentRun(workflowId);
  if (!current) return { kind: 'start' };
  if (current.startRequestId === requestId) return { kind: 'existing', run: current, started: true };
  return isOpen(current) ? resolveRunning(engine, current, request) : resolveClosed(current, request);
}
