import { emptyConfigRows } from '../../../core/config/rows';
import { formatViolation, type VerboseRow } from '../../../core/config/types';
import { validateConfig } from '../../../core/config/validate';
import { DETERMINANT_METADATA, VERBOSE_DETERMINANTS } from '../../../core/verbose';
import { verbose } from '../../../db/seed/builders';

/** Issue #21: a ce_verbose row that could never show, or cannot be evaluated, is a config error at load. */
const row = (over: Partial<VerboseRow>): VerboseRow =>
  verbose({
    verboseId: 1,
    intentCode: 'ANY',
    stateCode: 'ANY',
    stepValue: 'McpToolStep',
    determinant: 'MCP_TOOL_CALL',
    message: 'Working.',
    ...over,
  });

const violations = (over: Partial<VerboseRow>) =>
  validateConfig({ ...emptyConfigRows(), verboses: [row(over)] }).violations.map(formatViolation);

describe('ce_verbose validation', () => {
  it('accepts the rows the Java engine publishes and its generic ones', () => {
    expect(violations({})).toEqual([]);
    expect(violations({ stepMatch: 'REGEX', stepValue: '.*Step$', determinant: 'STEP_ENTER' })).toEqual([]);
    expect(violations({ stepMatch: 'json_path', stepValue: '$.tool_code', determinant: 'ANY' })).toEqual([]);
    expect(violations({ stepValue: 'ANY', determinant: 'INTENT_RESOLVED' })).toEqual([]);
    expect(violations({ stepValue: 'McpToolCallStep', determinant: 'STEP_ERROR' })).toEqual([]);
  });

  it('refuses an invalid regex, an invalid JSONPath and an unknown step_match', () => {
    expect(violations({ stepMatch: 'REGEX', stepValue: '(unclosed' })).toEqual([
      expect.stringMatching(/^ce_verbose\[1\]: step_value: invalid regular expression "\(unclosed"/),
    ]);
    expect(violations({ stepMatch: 'JSON_PATH', stepValue: '$[?(@.x ==' })).toEqual([
      expect.stringMatching(/^ce_verbose\[1\]: step_value: invalid JSONPath "\$\[\?\(@\.x =="/),
    ]);
    expect(violations({ stepMatch: 'CONTAINS' })).toEqual([
      'ce_verbose[1]: unknown step_match "CONTAINS" (known: EXACT, REGEX, JSON_PATH)',
    ]);
  });

  it('refuses a step or determinant that nothing publishes, and a pair that never occurs', () => {
    expect(violations({ stepValue: 'AgentIntentResolver' })).toEqual([
      expect.stringMatching(/^ce_verbose\[1\]: unknown step "AgentIntentResolver": no step publishes progress/),
    ]);
    expect(violations({ determinant: 'MCP_TOOL_CALLED' })).toEqual([
      expect.stringMatching(/^ce_verbose\[1\]: unknown determinant "MCP_TOOL_CALLED"/),
    ]);
    expect(violations({ stepValue: 'RulesStep' })).toEqual([
      'ce_verbose[1]: step "RulesStep" never publishes MCP_TOOL_CALL (it publishes STEP_ENTER, STEP_EXIT, STEP_ERROR)',
    ]);
  });

  it('refuses blank columns, malformed templates and an unknown scope; ignores disabled rows', () => {
    expect(violations({ stepValue: ' ', determinant: '' })).toEqual([
      'ce_verbose[1]: step_value is null/blank',
      'ce_verbose[1]: determinant is null/blank',
    ]);
    expect(violations({ message: null, errorMessage: '' })).toEqual([
      'ce_verbose[1]: message and error_message are both blank',
    ]);
    expect(violations({ message: 'Checking {{customer' })).toEqual([
      expect.stringMatching(/^ce_verbose\[1\]: message: /),
    ]);
    expect(violations({ intentCode: 'LOAN' })).toEqual([
      'ce_verbose[1]: invalid intent_code=LOAN (not defined in ce_intent)',
    ]);
    expect(violations({ enabled: false, stepMatch: 'REGEX', stepValue: '(' })).toEqual([]);
  });

  it('checks message variables as prompt variables are, with the metadata the event carries', () => {
    // The session and step variables, the metadata of every event, and this determinant's own.
    expect(
      violations({ message: 'Calling {{tool_code}} for {{intent}} ({{conversationId}}, {{stepName}}) {{args.id}}' })
    ).toEqual([]);
    expect(violations({ message: '{{metadata.anything}} {{user_input}}', errorMessage: 'Failed: {{error}}' })).toEqual(
      []
    );
    expect(violations({ message: 'Calling {{toolCode}} with {{answer}}' })).toEqual([
      'ce_verbose[1]: message references unknown variable {{toolCode}}',
      'ce_verbose[1]: message references unknown variable {{answer}}',
    ]);
    expect(violations({ determinant: 'MCP_FINAL_ANSWER', message: 'Answer: {{answer}}' })).toEqual([]);
    // A row for any determinant may read what any event carries.
    expect(violations({ determinant: 'ANY', errorMessage: '{{field}} {{iteration}} {{resolvedIntent}}' })).toEqual([]);
    expect(violations({ determinant: 'ANY', errorMessage: '{{no_such_thing}}' })).toEqual([
      'ce_verbose[1]: error_message references unknown variable {{no_such_thing}}',
    ]);
  });

  it('knows the metadata of every determinant a step publishes', () => {
    expect(Object.keys(DETERMINANT_METADATA).sort()).toEqual([...VERBOSE_DETERMINANTS].sort());
  });
});
