import { publicToolErrorMessage } from '../../../core/mcp/tool-error-text';

describe('publicToolErrorMessage', () => {
  it.each([
    ['TOOL_EXECUTION_FAILED', 'SQL tool failed: relation "ce_secret" does not exist (SQLSTATE 42P01)', 'failed'],
    [
      'TOOL_HTTP_ERROR',
      'HTTP_API call of t failed due to an IO error: connect ECONNREFUSED 10.0.0.7:8443',
      'failed: its HTTP call did not succeed',
    ],
    ['TOOL_TIMEOUT', 'SQL tool took longer than its statement timeout', 'timed out'],
    ['TOOL_NOT_ALLOWED', 'permission denied for table payroll (SQLSTATE 42501)', 'is not allowed here'],
    ['SQL_GUARDRAIL_REJECTED', 'DB tool t: table pg_authid is not allowed', 'was refused by the SQL guardrail'],
  ])('says what a %s failure was, not what the driver said', (type, message, phrase) => {
    const text = publicToolErrorMessage('loan.lookup', type, message);
    expect(text).toBe(`Tool loan.lookup ${phrase} (${type}).`);
  });

  it("keeps the engine's own words about the arguments it was given", () => {
    const message = 'Arguments for loan.lookup do not match its input schema: args.amount must be number';
    expect(publicToolErrorMessage('loan.lookup', 'TOOL_ARGS_INVALID', message)).toBe(message);
  });

  it('fails closed on a type it does not know, and maps class names to codes', () => {
    expect(publicToolErrorMessage('t', 'NEW_KIND', 'secret at 10.0.0.1')).toBe('Tool t failed (NEW_KIND).');
    expect(publicToolErrorMessage('t', 'DatabaseError', 'secret')).toBe('Tool t failed (TOOL_EXECUTION_FAILED).');
    expect(publicToolErrorMessage('t', 'TimeoutFailure', 'activity StartToClose timeout')).toBe(
      'Tool t timed out (TOOL_TIMEOUT).'
    );
  });
});
