import type { ConfigRows } from '../../core/config/types';
import { loanConfirmationPack } from '../../db/seed/packs/loan-confirmation';
import { configRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';
import type { ScriptEntry } from '../../scripted-llm';

/**
 * Example 3, confirmation-first loan application (§12.5, seed mcp-deep-dive-v2.0.9), on the
 * loan-confirmation seed pack, with the real MCP activities; the four loan tools are stub handlers.
 */
const T1 = 'I need a loan for my customer. Customer id 1234, 35000, 24 months.';
const REPLY_1 = 'Please confirm: customerId 1234, requestedAmount 35000, tenureMonths 24. Proceed?';
const REPLY_2 = 'Updated. Please confirm: customerId 1234, requestedAmount 350000, tenureMonths 24. Proceed?';
const REPLY_3 =
  'Loan application submitted for customer 1234. Amount 350000, tenure 24 months. Application ID LA-90311.';

const TOOL_RESULTS = {
  'loan.credit.rating.check': async () => ({ customerId: '1234', creditRating: 782 }),
  'loan.credit.fraud.check': async () => ({ customerId: '1234', flagged: false }),
  'loan.debt.credit.summary': async () => ({ customerId: '1234', dti: 0.31, availableCredit: 220000 }),
  'loan.application.submit': async () => ({ applicationId: 'LA-90311', status: 'SUBMITTED' }),
};

const plan = (tool_code: string, args: object): ScriptEntry => ({
  kind: 'PLAN',
  reply: { action: 'CALL_TOOL', tool_code, args, answer: null, operation_tag: null },
});
const TURN3_PLAN: ScriptEntry[] = [
  plan('loan.credit.rating.check', { customerId: '1234' }),
  plan('loan.credit.fraud.check', { customerId: '1234' }),
  plan('loan.debt.credit.summary', { customerId: '1234' }),
  plan('loan.application.submit', { customerId: '1234', requestedAmount: 350000, tenureMonths: 24 }),
  {
    kind: 'PLAN',
    reply: {
      action: 'ANSWER',
      tool_code: null,
      args: {},
      answer: 'Submitted: application LA-90311.',
      operation_tag: null,
    },
  },
];

function rows(dialogueActMode?: string): Partial<ConfigRows> {
  const config = loanConfirmationPack.rows;
  return dialogueActMode
    ? {
        ...config,
        configs: [...(config.configs ?? []), configRow('DialogueActStep', 'RESOLUTE_MODE', dialogueActMode)],
      }
    : config;
}

describe('Example 3 — confirmation-first loan application', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start({ handlers: TOOL_RESULTS });
    await h.configure(rows());
  });
  afterAll(async () => h.stop());
  beforeEach(() => {
    h.llm.setScript([]);
    h.llm.clearRequests();
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  const turn1 = async () => {
    h.llm.push([
      { kind: 'DA', reply: { dialogueAct: 'NEW_REQUEST', confidence: 0.9 } },
      { kind: 'SCHEMA', reply: { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 } },
      { kind: 'RESP_TEXT', reply: REPLY_1 },
    ]);
    return h.turn({ message: T1 });
  };

  it('55 / 23: turn 1 collects the fields and asks for confirmation', async () => {
    const result = await turn1();
    expect(result).toMatchObject({
      intent: 'LOAN_APPLICATION',
      state: 'CONFIRMATION',
      payload: { type: 'TEXT', value: REPLY_1 },
    });
    expect(result.context).toMatchObject({
      customerId: '1234',
      requestedAmount: 35000,
      tenureMonths: 24,
      intent_lock: { locked: false },
    });
    const params = (await h.conversation(result.conversationId))?.inputParams;
    expect(params).toMatchObject({
      awaiting_confirmation: true,
      confirmation_key: 'LOAN_APPLICATION_CONFIRM',
      schema_id: 109,
    });
    const audits = await h.audits(result.conversationId);
    const stages = audits.map((a) => a.stage).filter((s) => !s.startsWith('STEP_'));
    expectInOrder(stages, [
      'USER_INPUT',
      'DIALOGUE_ACT_LLM_INPUT',
      'DIALOGUE_ACT_LLM_OUTPUT',
      'DIALOGUE_ACT_CLASSIFIED',
      'INTENT_CLASSIFICATION_MATCHED',
      'RULE_MATCH (IntentResolutionStep Classifier)',
      'SET_STATE',
      'INTENT_RESOLVED_BY_CLASSIFIER',
      'SCHEMA_EXTRACTION_START',
      'SCHEMA_EXTRACTION_LLM_INPUT',
      'SCHEMA_EXTRACTION_LLM_OUTPUT',
      'SCHEMA_STATUS',
      'RULE_MATCH (SchemaExtractionStep)',
      'SET_STATE',
      'RULE_APPLIED (SchemaExtractionStep)',
      'RULE_MATCH (SchemaExtractionStep)',
      'SET_INPUT_PARAM',
      'RULE_APPLIED (SchemaExtractionStep)',
      'RULE_NO_MATCH (McpToolStep PreMcp)',
      'MCP_NO_TOOLS_AVAILABLE',
      'RULE_NO_MATCH (RulesStep)',
      'RESOLVE_RESPONSE',
      'RESOLVE_RESPONSE_SELECTED',
      'RESOLVE_RESPONSE_LLM_INPUT',
      'RESOLVE_RESPONSE_LLM_OUTPUT',
      'ASSISTANT_OUTPUT',
      'MEMORY_UPDATED',
      'ENGINE_RETURN',
      'PIPELINE_TIMING',
    ]);
    expect(
      audits.filter((a) => a.stage === 'RULE_APPLIED (SchemaExtractionStep)').map((a) => a.payload['ruleId'])
    ).toEqual([130, 134]);
    expect(audits.find((a) => a.stage === 'SCHEMA_STATUS')?.payload).toMatchObject({
      schemaComplete: true,
      missingRequiredFields: [],
      schemaId: 109,
    });
    expect(h.llm.requestsOf('RESP_TEXT')[0]?.system).toMatch(/Please confirm/);
  });

  const turn2 = async (conversationId: string, message: string) => {
    h.llm.push([
      { kind: 'DA', reply: { dialogueAct: 'EDIT', confidence: 0.9, standaloneQuery: 'change amount to 350000' } },
      { kind: 'RESP_TEXT', reply: REPLY_2 },
    ]);
    return h.turn({ conversationId, message });
  };

  const turn3 = async (conversationId: string, message: string, daLlm: boolean) => {
    if (daLlm)
      h.llm.push([
        {
          kind: 'DA',
          reply: { dialogueAct: 'AFFIRM', confidence: 0.95, standaloneQuery: 'Proceed with the loan application.' },
        },
      ]);
    h.llm.push([...TURN3_PLAN, { kind: 'RESP_TEXT', reply: REPLY_3 }]);
    return h.turn({ conversationId, message });
  };

  it.each([
    ['deterministic variant (55)', 'change amount to 350000', 'go ahead', false],
    ['seed transcript', 'Oh wait, change amount to 350000.', 'Looks good, go ahead.', true],
  ])('55 %s: edit in CONFIRMATION, then confirm and process', async (_label, edit, confirm, daLlmOnConfirm) => {
    const first = await turn1();
    const id = first.conversationId;

    h.llm.clearRequests();
    const second = await turn2(id, edit);
    expect(second).toMatchObject({ intent: 'LOAN_APPLICATION', state: 'CONFIRMATION', payload: { value: REPLY_2 } });
    expect(second.context['requestedAmount']).toBe(350000);
    expect(h.llm.requestsOf('PLAN')).toHaveLength(0);
    expect(h.llm.requestsOf('SCHEMA')).toHaveLength(0);
    expect(h.llm.requestsOf('RESP_TEXT')[0]?.userText).toMatch(
      /requestedAmount 350000[\s\S]*Correction applied this turn: true/
    );
    const audits2 = await h.audits(id, 2);
    expect(audits2.find((a) => a.stage === 'CORRECTION_STEP_CORRECTION_PATCH_APPLIED')?.payload).toMatchObject({
      field: 'requestedAmount',
      value: 350000,
    });
    expectInOrder(
      audits2.map((a) => a.stage),
      [
        'CORRECTION_STEP_CORRECTION_PATCH_APPLIED',
        'INTENT_RESOLVE_SKIPPED_POLICY',
        'RULE_MATCH (RulesStep)',
        'SET_STATE',
        'RULE_APPLIED (RulesStep)',
        'RESOLVE_RESPONSE',
      ]
    );
    expect(second.context).toMatchObject({ mcp: { lifecycle: { status: 'SKIPPED_DIALOGUE_ACT' } } });
    const params2 = (await h.conversation(id))?.inputParams;
    expect(params2).toMatchObject({
      routing_decision: 'APPLY_CORRECTION',
      correction_applied: true,
      correction_target_field: 'requestedAmount',
    });

    h.llm.clearRequests();
    const third = await turn3(id, confirm, daLlmOnConfirm);
    expect(third).toMatchObject({ intent: 'LOAN_APPLICATION', state: 'COMPLETED', payload: { value: REPLY_3 } });
    expect(h.llm.requestsOf('SCHEMA')).toHaveLength(0);
    expect(h.llm.requestsOf('INTENT')).toHaveLength(0);
    expect(h.llm.requestsOf('PLAN')).toHaveLength(5);
    expect(third.context['mcp']).toMatchObject({
      finalAnswer: 'Submitted: application LA-90311.',
      lifecycle: {
        phase: 'POST_AGENT_MCP',
        status: 'ANSWER',
        outcome: 'ANSWERED',
        finished: true,
        blocked: false,
        error: false,
        toolExecuted: false,
      },
    });
    const stages3 = (await h.audits(id, 3)).map((a) => a.stage).filter((s) => !s.startsWith('STEP_'));
    const toolRound = ['MCP_PLAN_LLM_INPUT', 'MCP_PLAN_LLM_OUTPUT', 'MCP_TOOL_CALL', 'MCP_TOOL_RESULT'];
    expectInOrder(stages3, [
      'USER_INPUT',
      'DIALOGUE_ACT_CLASSIFIED',
      'CORRECTION_STEP_CONFIRM_ACCEPT',
      'GUARDRAIL_ALLOW',
      'INTENT_RESOLVE_SKIPPED_POLICY',
      'AUTO_ADVANCE_FACTS',
      'RULE_MATCH (McpToolStep PreMcp)',
      'SET_STATE',
      'RULE_APPLIED (McpToolStep PreMcp)',
      'MCP_CONTEXT_CLEARED',
      ...toolRound,
      ...toolRound,
      ...toolRound,
      ...toolRound,
      'MCP_PLAN_LLM_INPUT',
      'MCP_PLAN_LLM_OUTPUT',
      'MCP_FINAL_ANSWER',
      'RULE_MATCH (McpToolStep)',
      'SET_STATE',
      'RULE_APPLIED (McpToolStep)',
      'RULE_NO_MATCH (RulesStep)',
      'RESOLVE_RESPONSE',
      'RESOLVE_RESPONSE_SELECTED',
      'RESOLVE_RESPONSE_LLM_INPUT',
      'RESOLVE_RESPONSE_LLM_OUTPUT',
      'ASSISTANT_OUTPUT',
      'MEMORY_UPDATED',
      'ENGINE_RETURN',
      'PIPELINE_TIMING',
    ]);
    expect(stages3.includes('DIALOGUE_ACT_LLM_INPUT')).toBe(daLlmOnConfirm);
    expect((await h.conversation(id))?.turnCount).toBe(3);
  });
});
