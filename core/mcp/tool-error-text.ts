import { ErrorType } from '../errors';

/**
 * What a turn's context says of a tool that failed. The context reaches the API's caller (the turn's
 * reply, GET /conversation/{id}) and the response templates, so it gets the failure's type in words,
 * never the message of the database driver or the network, which names tables, SQLSTATEs and
 * internal addresses. The whole message stays in the TOOL_ERROR, TOOL_ROOT_CAUSE and
 * TOOL_ORCHESTRATION_ERROR audit rows and in the activity's failure, which operators read.
 *
 * Fails closed: a type not listed here is "failed". Only TOOL_ARGS_INVALID keeps its message, which
 * the engine writes about the arguments it was given (a field missing, a value of the wrong type).
 */
const PHRASE: Readonly<Record<string, string>> = {
  [ErrorType.ToolTimeout]: 'timed out',
  [ErrorType.ToolHttpError]: 'failed: its HTTP call did not succeed',
  [ErrorType.ToolCircuitOpen]: 'is unavailable for now',
  [ErrorType.ToolNotAllowed]: 'is not allowed here',
  [ErrorType.SqlGuardrailRejected]: 'was refused by the SQL guardrail',
  [ErrorType.ToolResponseInexactNumber]: 'answered a number the engine cannot hold exactly',
};

/** A failure type that is not one of our codes: Temporal's timeout, or some library's class name. */
function codeOf(failureType: string): string {
  if (/^[A-Z][A-Z0-9_]*$/.test(failureType)) return failureType;
  return failureType === 'TimeoutFailure' ? ErrorType.ToolTimeout : ErrorType.ToolExecutionFailed;
}

export function publicToolErrorMessage(toolCode: string, failureType: string, message: string): string {
  if (failureType === ErrorType.ToolArgsInvalid) return message;
  const code = codeOf(failureType);
  return `Tool ${toolCode} ${PHRASE[code] ?? 'failed'} (${code}).`;
}
