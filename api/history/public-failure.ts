import { publicFailureType } from '../replies';

/** What the console may show of a failure. */
export interface PublicFailure {
  type: string | null;
  message: string;
  nonRetryable: boolean;
}

export const INTERNAL_FAILURE_MESSAGE =
  'The step failed on an internal error; its message is in the turn history (`convengine history <workflowId>`).';

/**
 * Engine failures (typed codes such as TOOL_HTTP_ERROR) are written for the reader and shown as
 * they are. Anything else is an unexpected error (a driver's, a library's) whose message may carry
 * SQL or internals: the API shows only that something internal failed, as for STEP_ERROR rows.
 */
export function publicFailure(failure: PublicFailure): PublicFailure {
  if (failure.type !== null && publicFailureType(failure.type) === failure.type) return failure;
  return { type: 'INTERNAL', message: INTERNAL_FAILURE_MESSAGE, nonRetryable: failure.nonRetryable };
}
