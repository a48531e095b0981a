import type { VerboseRow } from '../../../core/config/types';
import type { JsonObject } from '../../../core/json';
import { eventMetadata, resolveVerbose, selectVerboseRow, type VerboseRequest } from '../../../core/verbose';
import { verbose } from '../../../db/seed/builders';

/** Reference "Verbose messages" (the Java engine's DbVerboseMessageResolver): matching, score, rendering. */
const request = (over: Partial<VerboseRequest> = {}): VerboseRequest => ({
  conversationId: 'c-1',
  intent: 'LOAN_APPLICATION',
  state: 'PROCESS_APPLICATION',
  stepName: 'McpToolStep',
  determinant: 'MCP_TOOL_CALL',
  toolCode: 'loan.credit.rating.check',
  ...over,
});

const row = (verboseId: number, over: Partial<VerboseRow> = {}): VerboseRow =>
  verbose({
    verboseId,
    intentCode: 'ANY',
    stateCode: 'ANY',
    stepValue: 'McpToolStep',
    determinant: 'MCP_TOOL_CALL',
    message: `message ${verboseId}`,
    ...over,
  });

const vars = () => ({ customerName: 'Ada' });
const selected = (rows: VerboseRow[], over: Partial<VerboseRequest> = {}) =>
  selectVerboseRow(rows, request(over))?.verboseId ?? null;

describe('ce_verbose matching', () => {
  it('filters on determinant, rule and tool (blank or ANY admit anything), and on enabled', () => {
    expect(selected([row(1, { determinant: 'MCP_TOOL_RESULT' })])).toBeNull();
    expect(selected([row(1, { determinant: 'any' })])).toBe(1);
    expect(selected([row(1, { toolCode: 'loan.credit.fraud.check' })])).toBeNull();
    expect(selected([row(1, { toolCode: 'LOAN.CREDIT.RATING.CHECK' })])).toBe(1);
    expect(selected([row(1, { toolCode: 'x' })], { toolCode: null })).toBeNull();
    expect(selected([row(1, { ruleId: 7 })])).toBeNull();
    expect(selected([row(1, { ruleId: 7 })], { ruleId: 7 })).toBe(1);
    expect(selected([row(1, { enabled: false })])).toBeNull();
  });

  it('scopes by intent and state, exact (case-insensitive) or ANY', () => {
    expect(selected([row(1, { intentCode: 'loan_application', stateCode: 'ANY' })])).toBe(1);
    expect(selected([row(1, { intentCode: 'ORDER_DIAGNOSTICS' })])).toBeNull();
    expect(selected([row(1, { stateCode: 'COMPLETED' })])).toBeNull();
  });

  it('matches the step EXACT (or ANY), by REGEX find, or by JSON_PATH on the event metadata', () => {
    expect(selected([row(1, { stepValue: 'mcptoolstep' })])).toBe(1);
    expect(selected([row(1, { stepValue: 'RulesStep' })])).toBeNull();
    expect(selected([row(1, { stepValue: 'ANY' })])).toBe(1);
    expect(selected([row(1, { stepMatch: 'REGEX', stepValue: 'tool' })])).toBe(1);
    expect(selected([row(1, { stepMatch: 'REGEX', stepValue: '^Rules' })])).toBeNull();
    const path = (stepValue: string, metadata: object) =>
      selected([row(1, { stepMatch: 'JSON_PATH', stepValue })], { metadata: metadata as never });
    expect(path('$.tool_group', { tool_group: 'HTTP_API' })).toBe(1);
    expect(path('$.retry', { retry: false })).toBeNull();
    expect(path('$.retry', { retry: 'false' })).toBeNull();
    expect(path('$.missing', {})).toBeNull();
    // conversationId, stepName and determinant are part of the metadata a path sees.
    expect(path("$[?(@.stepName == 'McpToolStep')]", {})).toBe(1);
    expect(path("$[?(@.stepName == 'RulesStep')]", {})).toBeNull();
  });

  it('takes the best score: exact scope, determinant, step, rule and tool outrank wildcards', () => {
    const generic = row(1, { stepMatch: 'REGEX', stepValue: '.*Step$', determinant: 'ANY', priority: 1 });
    const tool = row(2, { toolCode: 'loan.credit.rating.check', priority: 50 });
    expect(selected([generic, tool])).toBe(2);
    const scoped = row(3, { intentCode: 'LOAN_APPLICATION', priority: 90 });
    expect(selected([generic, tool, scoped])).toBe(3);
  });

  it('breaks ties by the lower priority number, then the lower id', () => {
    expect(selected([row(2, { priority: 20 }), row(1, { priority: 30 })])).toBe(2);
    expect(selected([row(5), row(4)])).toBe(4);
  });

  it('never matches an event without intent, state, step or determinant', () => {
    expect(selected([row(1)], { intent: ' ' })).toBeNull();
    expect(selected([row(1, { determinant: 'ANY' })], { determinant: '' })).toBeNull();
  });
});

describe('ce_verbose rendering', () => {
  it('renders message with session variables and the event metadata into a VERBOSE_PROGRESS payload', () => {
    const rows = [row(4, { message: 'Checking {{customerName}} with {{tool_code}}.', errorMessage: 'Failed.' })];
    const payload = resolveVerbose(rows, request({ metadata: { tool_code: 'loan.credit.rating.check' } }), vars);
    expect(payload).toEqual({
      verboseId: 4,
      eventType: 'VERBOSE_PROGRESS',
      stepName: 'McpToolStep',
      determinant: 'MCP_TOOL_CALL',
      intent: 'LOAN_APPLICATION',
      state: 'PROCESS_APPLICATION',
      ruleId: null,
      toolCode: 'loan.credit.rating.check',
      level: 'INFO',
      text: 'Checking Ada with loan.credit.rating.check.',
      message: 'Checking Ada with loan.credit.rating.check.',
      errorMessage: 'Failed.',
      metadata: {
        tool_code: 'loan.credit.rating.check',
        conversationId: 'c-1',
        stepName: 'McpToolStep',
        determinant: 'MCP_TOOL_CALL',
        severity: 'INFO',
        theme: 'progress',
        icon: 'spark',
      },
    });
  });

  it('uses error_message for an error event, falling back on message (and vice versa)', () => {
    const both = [row(1, { message: 'Checking.', errorMessage: 'Check failed for {{metadata.determinant}}.' })];
    expect(resolveVerbose(both, request({ error: true }), vars)).toMatchObject({
      level: 'ERROR',
      text: 'Check failed for MCP_TOOL_CALL.',
      metadata: { severity: 'ERROR', theme: 'danger', icon: 'warning' },
    });
    const onlyMessage = [row(1, { message: 'Checking.', errorMessage: null })];
    expect(resolveVerbose(onlyMessage, request({ error: true }), vars)?.text).toBe('Checking.');
    const onlyError = [row(1, { message: ' ', errorMessage: 'Oops.' })];
    expect(resolveVerbose(onlyError, request(), vars)?.text).toBe('Oops.');
  });

  it('publishes nothing without a row, except the generic message for an error', () => {
    expect(resolveVerbose([], request(), vars)).toBeNull();
    expect(resolveVerbose([], request({ error: true }), vars)).toMatchObject({
      verboseId: null,
      level: 'ERROR',
      text: 'Something went wrong while processing McpToolStep.',
    });
  });

  it('publishes nothing when the message renders blank, and only builds variables for a match', () => {
    const built = jest.fn(vars);
    expect(resolveVerbose([row(1, { message: '{{nothing}}' })], request(), built)).toBeNull();
    expect(built).toHaveBeenCalledTimes(1);
    built.mockClear();
    expect(resolveVerbose([row(1, { determinant: 'STEP_EXIT' })], request(), built)).toBeNull();
    expect(built).not.toHaveBeenCalled();
  });

  it('lays conversationId, stepName and determinant under the published metadata without changing it', () => {
    const metadata = { theme: 'x', stepName: null, determinant: 'OWN' };
    const out = eventMetadata(request({ metadata }));
    expect(out).toEqual({ theme: 'x', stepName: 'McpToolStep', determinant: 'OWN', conversationId: 'c-1' });
    expect(Object.keys(out)).toEqual(['theme', 'stepName', 'determinant', 'conversationId']);
    expect(metadata).toEqual({ theme: 'x', stepName: null, determinant: 'OWN' });
    expect(eventMetadata(request())).toEqual({
      conversationId: 'c-1',
      stepName: 'McpToolStep',
      determinant: 'MCP_TOOL_CALL',
    });
    const hostile = JSON.parse('{"__proto__": {"conversationId": "fake"}}') as JsonObject;
    const copied = eventMetadata(request({ metadata: hostile }));
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.hasOwn(copied, '__proto__')).toBe(true);
    expect(copied['conversationId']).toBe('c-1');
  });
});
