import { publicAuditPayload } from '../../api/db-queries';
import { INTERNAL_FAILURE_MESSAGE } from '../../api/history/public-failure';
import { publicFailureType } from '../../api/replies';

describe('no internal class names or driver messages in responses', () => {
  it('keeps our failure codes and hides class names', () => {
    expect(publicFailureType('TOOL_TIMEOUT')).toBe('TOOL_TIMEOUT');
    expect(publicFailureType('DrizzleQueryError')).toBe('INTERNAL');
    expect(publicFailureType('Error')).toBe('INTERNAL');
  });

  it('shows a STEP_ERROR audit of an unexpected error as INTERNAL, without its message', () => {
    const leaked = {
      step: 'PersistConversation',
      errorType: 'DrizzleQueryError',
      errorMessage: 'Failed query: insert into "ce_conversation" … params: secret',
    };
    expect(publicAuditPayload('STEP_ERROR', leaked)).toEqual({
      step: 'PersistConversation',
      errorType: 'INTERNAL',
      // The text every API view gives such a failure (api/history/public-failure.ts).
      errorMessage: INTERNAL_FAILURE_MESSAGE,
    });
    const ours = { step: 'McpPlan', errorType: 'LLM_CALL_FAILED', errorMessage: 'The model answered 529.' };
    expect(publicAuditPayload('STEP_ERROR', ours)).toBe(ours);
    const other = { errorType: 'Whatever' };
    expect(publicAuditPayload('MCP_TOOL_RESULT', other)).toBe(other);
  });

  it("shows a turn's ENGINE_UNKNOWN_FAILURE as INTERNAL, without its message, and keeps a known failure's code", () => {
    const leaked = {
      step: 'PersistConversation',
      errorCode: 'DrizzleQueryError',
      message: 'Failed query: insert into "ce_conversation" … params: secret',
      recoverable: true,
      attempt: 5,
    };
    expect(publicAuditPayload('ENGINE_UNKNOWN_FAILURE', leaked)).toEqual({
      ...leaked,
      errorCode: 'INTERNAL',
      message: INTERNAL_FAILURE_MESSAGE,
    });
    const ours = {
      step: 'McpPlan',
      errorCode: 'LLM_CALL_FAILED',
      message: 'The model answered 500.',
      recoverable: true,
    };
    expect(publicAuditPayload('ENGINE_KNOWN_FAILURE', ours)).toBe(ours);
  });
});
