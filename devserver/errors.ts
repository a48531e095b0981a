/**
 * Typed errors raised by the engine. The gRPC layer maps `type` to a status code in one place
 * (grpc/status.ts), so engine code never deals with gRPC.
 */
import { enums } from './proto/types';

export type DevServerErrorType =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'ALREADY_EXISTS'
  | 'FAILED_PRECONDITION'
  | 'RESOURCE_EXHAUSTED'
  | 'PERMISSION_DENIED'
  | 'UNAUTHENTICATED'
  | 'UNIMPLEMENTED'
  | 'DEADLINE_EXCEEDED'
  | 'CANCELLED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

/** A `google.rpc.Status` detail: a Temporal errordetails message and its fields. */
export interface ErrorDetail {
  typeName: string;
  message: object;
}

export class DevServerError extends Error {
  constructor(
    readonly type: DevServerErrorType,
    message: string,
    readonly detail?: ErrorDetail
  ) {
    super(message);
    this.name = 'DevServerError';
  }
}

export function invalidArgument(message: string): DevServerError {
  return new DevServerError('INVALID_ARGUMENT', message);
}

export function notFound(message: string): DevServerError {
  return new DevServerError('NOT_FOUND', message, {
    typeName: 'temporal.api.errordetails.v1.NotFoundFailure',
    message: { currentCluster: 'active', activeCluster: 'active' },
  });
}

export function unimplemented(message: string): DevServerError {
  return new DevServerError('UNIMPLEMENTED', message);
}

export function workflowNotFound(workflowId: string, runId?: string): DevServerError {
  const run = runId ? `, RunId: ${runId}` : '';
  return notFound(`workflow execution not found (WorkflowId: ${workflowId}${run})`);
}

export function workflowAlreadyCompleted(): DevServerError {
  return notFound('workflow execution already completed');
}

/**
 * The real server's retryable ErrWorkflowClosing (`history/consts`): RESOURCE_EXHAUSTED, cause BUSY_WORKFLOW,
 * which the SDK client retries.
 */
export function workflowClosing(): DevServerError {
  return resourceExhausted(
    'workflow operation can not be applied because workflow is closing',
    enums.ResourceExhaustedCause.RESOURCE_EXHAUSTED_CAUSE_BUSY_WORKFLOW
  );
}

/** RESOURCE_EXHAUSTED with its ResourceExhaustedFailure detail: the SDK client retries it, slowly. */
export function resourceExhausted(message: string, cause: number): DevServerError {
  return new DevServerError('RESOURCE_EXHAUSTED', message, {
    typeName: 'temporal.api.errordetails.v1.ResourceExhaustedFailure',
    message: { cause, scope: enums.ResourceExhaustedScope.RESOURCE_EXHAUSTED_SCOPE_NAMESPACE },
  });
}

export function workflowNotReady(message: string): DevServerError {
  return new DevServerError('FAILED_PRECONDITION', message, {
    typeName: 'temporal.api.errordetails.v1.WorkflowNotReadyFailure',
    message: {},
  });
}

export function taskNotFound(what: string): DevServerError {
  return notFound(`${what} not found: the task is stale, already completed or timed out`);
}

/** Throws INVALID_ARGUMENT unless `value` is a non-empty string. */
export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw invalidArgument(`${field} is not set on request.`);
  return value;
}
