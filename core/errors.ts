/**
 * Typed engine errors. `type` is what Temporal sees as the ApplicationFailure type and what the
 * API maps to an error code; `retryable` decides whether an activity retry can help.
 */
export const ErrorType = {
  ConfigInvalid: 'CONFIG_INVALID',
  ConfigVersionUnavailable: 'CONFIG_VERSION_UNAVAILABLE',
  ValidationFailed: 'VALIDATION_FAILED',
  UnresolvedPromptVariable: 'UNRESOLVED_PROMPT_VARIABLE',
  ResponseMappingNotFound: 'RESPONSE_MAPPING_NOT_FOUND',
  PromptTemplateMissing: 'PROMPT_TEMPLATE_MISSING',
  LlmOutputInvalid: 'LLM_OUTPUT_INVALID',
  LlmCallFailed: 'LLM_CALL_FAILED',
  GuardrailBlocked: 'GUARDRAIL_BLOCKED',
  SqlGuardrailRejected: 'SQL_GUARDRAIL_REJECTED',
  ToolNotAllowed: 'TOOL_NOT_ALLOWED',
  ToolArgsInvalid: 'TOOL_ARGS_INVALID',
  ToolTimeout: 'TOOL_TIMEOUT',
  ToolHttpError: 'TOOL_HTTP_ERROR',
  ToolCircuitOpen: 'TOOL_CIRCUIT_OPEN',
  ToolExecutionFailed: 'TOOL_EXECUTION_FAILED',
  ConcurrentTurn: 'TURN_IN_PROGRESS',
  StaleTurn: 'STALE_TURN',
  ConversationNotFound: 'CONVERSATION_NOT_FOUND',
  Internal: 'INTERNAL',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

export class EngineError extends Error {
  readonly type: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    type: string,
    message: string,
    options: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {}
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.type = type;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
