import { EngineError, ErrorType } from '../../core/errors';
import { shareJson, type Json } from '../../core/json';
import { screenOutputJson } from '../../core/text/storable-output';

/**
 * A tool's result as the engine takes it in (core/text/storable-output.ts): strings PostgreSQL can store
 * (a NUL in a write tool's 201 body once failed every attempt and re-sent the POST), and nesting within
 * MAX_OUTPUT_DEPTH. A deeper result is refused as TOOL_EXECUTION_FAILED, not retried: the upstream would
 * answer the same way again, and a write it applied must not be sent twice. The result is shared (core/json.ts):
 * no step changes it, so none copies it.
 */
export function storableToolOutput(toolCode: string, result: Json): Json {
  const screened = screenOutputJson(result);
  if (screened.ok) return shareJson(screened.json);
  throw new EngineError(ErrorType.ToolExecutionFailed, `Tool ${toolCode} returned a result ${screened.error}`, {
    retryable: false,
    details: { toolCode, reason: 'RESULT_TOO_DEEP' },
  });
}
