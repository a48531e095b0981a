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
  ResponseNotJson: 'RESPONSE_NOT_JSON',
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
  ToolResponseInexactNumber: 'TOOL_RESPONSE_INEXACT_NUMBER',
  ConcurrentTurn: 'TURN_IN_PROGRESS',
  StaleTurn: 'STALE_TURN',
  ConversationNotFound: 'CONVERSATION_NOT_FOUND',
  /** The conversation was pruned or erased (ce_retired_conversation): its row is not created again. */
  ConversationRetired: 'CONVERSATION_RETIRED',
  /** A step tried as a local activity reached the LLM or consumer code: the workflow reruns it as a regular one. */
  NeedsRegularActivity: 'NEEDS_REGULAR_ACTIVITY',
  Internal: 'INTERNAL',
} as const;
export type ErrorTypeName = (typeof ErrorType)[keyof typeof ErrorType];

/**
 * Why a local attempt handed its step over to a regular activity, or null for any other failure:
 * NEEDS_REGULAR_ACTIVITY, raised when the attempt reached the LLM or consumer code and so wrote
 * nothing. Read from the `type` an EngineError and Temporal's ApplicationFailure both carry.
 */
export function handOverReason(err: unknown): string | null {
  return err instanceof Error && (err as { type?: unknown }).type === ErrorType.NeedsRegularActivity
    ? err.message
    : null;
}

/**
 * Whether another attempt can help, per error type: the one place retryability is decided. An
 * EngineError of a type takes its retryability from here (a type not listed is not retried), and
 * PERMANENT_ERROR_TYPES (every retry policy's nonRetryableErrorTypes, workflow and in-process) is
 * derived from it. A throw site may still say `retryable: false` for one occurrence of a retryable
 * type (e.g. a SQL error that will fail the same way again), with a comment saying why; never the
 * reverse, which the retry policies would refuse anyway.
 */
export const ERROR_RETRYABLE: Readonly<Record<ErrorTypeName, boolean>> = {
  CONFIG_INVALID: false,
  CONFIG_VERSION_UNAVAILABLE: false,
  VALIDATION_FAILED: false,
  UNRESOLVED_PROMPT_VARIABLE: false,
  RESPONSE_MAPPING_NOT_FOUND: false,
  // An output_format JSON template rendered text that is not JSON: the same template and values render it again.
  RESPONSE_NOT_JSON: false,
  PROMPT_TEMPLATE_MISSING: false,
  // The model answered, but not as the contract asks: the same prompt tends to get the same kind of
  // answer, and six attempts with up to 20 s of backoff would only delay the failed turn.
  LLM_OUTPUT_INVALID: false,
  LLM_CALL_FAILED: true,
  GUARDRAIL_BLOCKED: false,
  SQL_GUARDRAIL_REJECTED: false,
  TOOL_NOT_ALLOWED: false,
  TOOL_ARGS_INVALID: false,
  TOOL_TIMEOUT: true,
  TOOL_HTTP_ERROR: true,
  TOOL_CIRCUIT_OPEN: true,
  // Tool code failed (a consumer handler's `throw new Error`, a lost connection): worth another attempt.
  TOOL_EXECUTION_FAILED: true,
  // The upstream answered a number a double does not hold (1e400, 2^64+1): the same call gets the same answer.
  TOOL_RESPONSE_INEXACT_NUMBER: false,
  // Raised by the gateway, never by an activity; a retry of the request may succeed.
  TURN_IN_PROGRESS: true,
  STALE_TURN: false,
  CONVERSATION_NOT_FOUND: true,
  // A retired id stays retired: the turn ends at once, writing nothing (activities/step-runtime.ts).
  CONVERSATION_RETIRED: false,
  // Another local attempt would stop at the same call; the regular activity is the retry.
  NEEDS_REGULAR_ACTIVITY: false,
  INTERNAL: true,
};

/** Failure types a retry cannot fix: bad config, bad input, guardrail verdicts, stale turns. */
export const PERMANENT_ERROR_TYPES: readonly ErrorTypeName[] = (Object.keys(ERROR_RETRYABLE) as ErrorTypeName[]).filter(
  (type) => !ERROR_RETRYABLE[type]
);

/** The retryability of an error type by the table; a type the table does not know is not retried. */
export function retryableByType(type: string): boolean {
  return Object.hasOwn(ERROR_RETRYABLE, type) && ERROR_RETRYABLE[type as ErrorTypeName];
}

/**
 * The classes JavaScript throws for a bug in the engine's own code: a TypeError reading a field that is not there,
 * a URIError encoding half a surrogate pair, a RangeError from a runaway recursion. Another attempt runs the same
 * code on the same input and fails the same way, so such an error is not retried and the turn it fails is not
 * reported as one a retry can fix (the API's 500, `recoverable: false`); it is still an unexpected error
 * (ENGINE_UNKNOWN_FAILURE, shown as INTERNAL). What tool code throws is TOOL_EXECUTION_FAILED instead, whatever its
 * class (activities/mcp/tool-call.ts), and stays retried: a tool's upstream may come back. So does a failed LLM call
 * (LLM_CALL_FAILED), whose SDK reports a lost connection as its own class.
 */
const PROGRAMMING_ERROR_CLASSES: ReadonlySet<string> = new Set([
  'TypeError',
  'RangeError',
  'ReferenceError',
  'URIError',
  'SyntaxError',
  'EvalError',
]);

/** Whether `err` is one of JavaScript's own error classes (PROGRAMMING_ERROR_CLASSES), never an engine error. */
export function isProgrammingError(err: unknown): err is Error {
  // By name: an error thrown by Node's own code comes from another realm than the caller's under a test runner.
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return typeof name === 'string' && PROGRAMMING_ERROR_CLASSES.has(name) && !isEngineError(err);
}

/**
 * Whether a failure type is one of our codes (TOOL_TIMEOUT, CONFIG_INVALID, TIMEOUT) rather than the class
 * name of an unexpected error (a driver's, a library's), which says nothing a client can use.
 */
export function isErrorCode(type: string): boolean {
  return /^[A-Z][A-Z0-9_]*$/.test(type);
}

/**
 * The key, in a failure's encoded attributes (Temporal's `encodedAttributes` payload, encrypted with
 * PAYLOAD_ENCRYPTION_KEYS), of the outline its message in history says instead of its text
 * (activities/runtime/sealed-failure.ts); workflow code reads it to keep the outline when it passes the failure on.
 */
export const SEALED_FAILURE_OUTLINE = 'outline';

export class EngineError extends Error {
  readonly type: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    type: string,
    message: string,
    options: {
      /** Default: the type's (ERROR_RETRYABLE). `false` makes this occurrence final; `true` cannot lift a permanent type. */
      retryable?: boolean;
      details?: Record<string, unknown>;
      cause?: unknown;
    } = {}
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.type = type;
    this.retryable = retryableByType(type) && options.retryable !== false;
    this.details = options.details;
  }
}

export function isEngineError(err: unknown): err is EngineError {
  return err instanceof EngineError;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Detail fields whose text names the failure (a code, a tool, a step), never what the user, a tool's upstream or
 * the model wrote, nor a configured secret. The one list for every place an error's details leave the activity.
 */
const SAFE_DETAIL_TEXT: ReadonlySet<string> = new Set([
  'sqlState',
  'toolCode',
  'errorClass',
  'kind',
  'rejection',
  'step',
  'ioKind',
  // Config codes a failure happened under; step log lines carry them too.
  'intent',
  'state',
]);

/**
 * An error's details as they may leave the activity (Temporal's history, a log line): numbers, flags and the named
 * codes above; any other text, and anything nested, is left out. An upstream's body, a step result's patches or a
 * rendered URL cannot be told from a code by its type, so what is not listed does not go.
 */
export function safeErrorDetails(details: unknown): Record<string, number | boolean | string> | '[omitted]' {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return '[omitted]';
  const kept = Object.entries(details).filter(
    ([key, value]) =>
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (typeof value === 'string' && SAFE_DETAIL_TEXT.has(key))
  );
  return Object.fromEntries(kept) as Record<string, number | boolean | string>;
}
