import { randomUUID } from 'node:crypto';
import type { ConfigRows } from '../../core/config/types';
import { loanConfirmationPack } from '../../db/seed/packs/loan-confirmation';
import { configRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

const LOAN = 'LOAN_APPLICATION';
const FIELDS = { customerId: '1234', requestedAmount: 35000, tenureMonths: 24 };

function loanRows(edit: (rows: Partial<ConfigRows>) => Partial<ConfigRows> = (r) => r): Partial<ConfigRows> {
  const rows = loanConfirmationPack.rows;
  return edit({
    ...rows,
    configs: [...(rows.configs ?? []), configRow('DialogueActStep', 'RESOLUTE_MODE', 'REGEX_ONLY')],
  });
}

describe('schema, correction and interaction (reference §14 scenarios 22, 24, 26, 27)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start({ handlers: { 'loan.credit.rating.check': async () => ({ creditRating: 782 }) } });
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    await h.configure(loanRows());
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  const seeded = async (stateCode: string, extra: { context?: object; params?: object } = {}) => {
    const id = randomUUID();
    await h.seedConversation(id, {
      intentCode: LOAN,
      stateCode,
      contextJson: { ...FIELDS, ...extra.context },
      inputParamsJson: { schema_id: 109, ...extra.params },
    });
    return id;
  };

  it('22 an incomplete extraction locks the intent and skips MCP', async () => {
    h.llm.push([
      { kind: 'SCHEMA', reply: { customerId: '1234', requestedAmount: null, tenureMonths: null } },
      { kind: 'RESP_TEXT', reply: 'What amount and tenure?' },
    ]);
    const result = await h.turn({ message: 'a loan for customer 1234' });
    expect(result).toMatchObject({
      intent: LOAN,
      state: 'ELIGIBILITY_GATE',
      payload: { value: 'What amount and tenure?' },
    });
    expect(result.context).toMatchObject({
      customerId: '1234',
      intent_lock: { locked: true, reason: 'SCHEMA_INCOMPLETE' },
      mcp: {
        lifecycle: {
          status: 'SKIPPED_SCHEMA_INCOMPLETE',
          outcome: 'SKIPPED',
          finished: true,
          errorMessage: 'SCHEMA_INCOMPLETE',
        },
      },
    });
    expect(result.context['requestedAmount']).toBeUndefined();
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'SCHEMA_STATUS')?.payload).toMatchObject({
      schemaComplete: false,
      missingRequiredFields: ['requestedAmount', 'tenureMonths'],
      intentLocked: true,
    });
    expectInOrder(
      audits.map((a) => a.stage),
      ['SCHEMA_STATUS', 'MCP_SKIPPED_SCHEMA_INCOMPLETE', 'RESOLVE_RESPONSE']
    );
    expect((await h.conversation(result.conversationId))?.inputParams['missing_fields']).toEqual([
      'requestedAmount',
      'tenureMonths',
    ]);
    expect(h.llm.requestsOf('RESP_TEXT')[0]?.userText).toMatch(/Missing fields: \[requestedAmount, tenureMonths\]/);
  });

  it('22 variant: a schema without a SCHEMA_JSON template is refused at load, not failed in every turn', async () => {
    const withoutTemplate = loanRows((r) => ({
      ...r,
      promptTemplates: r.promptTemplates?.filter((t) => t.templateId !== 124),
    }));
    const error = await h.configure(withoutTemplate).catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'CONFIG_INVALID' });
    expect(String((error as Error).message)).toMatch(
      /ce_output_schema\[\d+\]: has no enabled ce_prompt_template with output_format=SCHEMA_JSON for intent LOAN_APPLICATION \/ state ELIGIBILITY_GATE/
    );
  });

  it('24 with REGEX_ONLY, "change amount to …" stays NEW_REQUEST and nothing is patched (and D10: no stale extraction)', async () => {
    const id = await seeded('CONFIRMATION');
    h.llm.push([
      { kind: 'INTENT', reply: { intent: null, confidence: 0 } },
      { kind: 'RESP_TEXT', reply: 'Please confirm: unchanged.' },
    ]);
    const result = await h.turn({ conversationId: id, message: 'change amount to 350000' });
    expect(result).toMatchObject({ state: 'CONFIRMATION', context: { requestedAmount: 35000 } });
    const stages = await h.stages(id);
    expect(stages).not.toContain('CORRECTION_STEP_CORRECTION_PATCH_APPLIED');
    expect(stages).not.toContain('SCHEMA_EXTRACTION_START');
    expect(h.llm.requestsOf('SCHEMA')).toHaveLength(0);
  });

  it('24 variant: an edit whose value is not one number patches nothing, says so in ce_audit and in the reply prompt', async () => {
    await h.configure(loanConfirmationPack.rows);
    const id = await seeded('CONFIRMATION');
    const value = `35000 or maybe 40000 ${'or a little more '.repeat(20)}`.trim();
    h.llm.push([
      { kind: 'DA', reply: { dialogueAct: 'EDIT', confidence: 0.9 } },
      { kind: 'INTENT', reply: { intent: null, confidence: 0 } },
      { kind: 'RESP_TEXT', reply: 'I did not change requestedAmount: please give it as one number.' },
    ]);
    const result = await h.turn({ conversationId: id, message: `change amount to ${value}.` });
    expect(result).toMatchObject({ state: 'CONFIRMATION', context: { requestedAmount: 35000 } });
    const audits = await h.audits(id);
    expect(audits.map((a) => a.stage)).not.toContain('CORRECTION_STEP_CORRECTION_PATCH_APPLIED');
    const rejected = audits.find((a) => a.stage === 'CORRECTION_STEP_CORRECTION_PATCH_REJECTED')?.payload;
    expect(rejected).toMatchObject({
      field: 'requestedAmount',
      reason: 'NOT_ONE_NUMBER',
      intent: LOAN,
      state: 'CONFIRMATION',
      routingDecision: 'CONTINUE_STANDARD_FLOW',
    });
    expect(value.length).toBeGreaterThan(200);
    expect(rejected?.['text']).toBe(value.slice(0, 200));
    expect((await h.conversation(id))?.inputParams).toMatchObject({
      routing_decision: 'CONTINUE_STANDARD_FLOW',
      correction_applied: false,
      correction_rejected_field: 'requestedAmount',
      correction_rejected_reason: 'NOT_ONE_NUMBER',
    });
    expect(h.llm.requestsOf('RESP_TEXT')[0]?.userText).toContain(
      'Correction applied this turn: false\nCorrection refused this turn: requestedAmount NOT_ONE_NUMBER\n'
    );

    // The next turn starts clean: a patch that applies leaves no refusal behind.
    h.llm.clearRequests();
    h.llm.push([
      { kind: 'DA', reply: { dialogueAct: 'EDIT', confidence: 0.9, standaloneQuery: 'change amount to 40000' } },
      { kind: 'RESP_TEXT', reply: 'Updated.' },
    ]);
    await h.turn({ conversationId: id, message: 'change amount to 40000' });
    expect((await h.conversation(id))?.inputParams).toMatchObject({
      correction_applied: true,
      correction_rejected_field: null,
      correction_rejected_reason: null,
    });
    expect(h.llm.requestsOf('RESP_TEXT')[0]?.userText).toContain('Correction refused this turn:  \n');
  });

  it('26 (D10) AFFIRM without an affirm capability continues the standard flow and skips MCP', async () => {
    await h.configure(
      loanRows((r) => ({
        ...r,
        promptTemplates: r.promptTemplates?.map((t) =>
          t.templateId === 125 ? { ...t, interactionContract: { allows: ['edit'] } } : t
        ),
      }))
    );
    const id = await seeded('CONFIRMATION');
    h.llm.push([
      { kind: 'INTENT', reply: { intent: null, confidence: 0 } },
      { kind: 'RESP_TEXT', reply: 'Please confirm again.' },
    ]);
    const result = await h.turn({ conversationId: id, message: 'go ahead' });
    expect(result).toMatchObject({
      state: 'CONFIRMATION',
      context: { mcp: { lifecycle: { status: 'SKIPPED_DIALOGUE_ACT' } } },
    });
    expect((await h.conversation(id))?.inputParams['routing_decision']).toBe('CONTINUE_STANDARD_FLOW');
    const stages = await h.stages(id);
    expect(stages).not.toContain('CORRECTION_STEP_CONFIRM_ACCEPT');
    expect(stages).toContain('RULE_NO_MATCH (McpToolStep PreMcp)');
    expect(h.llm.requestsOf('SCHEMA')).toHaveLength(0);
  });

  it('27 "try again" in PROCESSING retries in place: intent and schema skipped, the planner runs again', async () => {
    const id = await seeded('PROCESS_APPLICATION');
    h.llm.push([
      {
        kind: 'PLAN',
        reply: { action: 'CALL_TOOL', tool_code: 'loan.credit.rating.check', args: { customerId: '1234' } },
      },
      { kind: 'PLAN', reply: { action: 'ANSWER', answer: 'Rejected: credit rating 782 is fine, but this is a test.' } },
      { kind: 'RESP_TEXT', reply: 'Done.' },
    ]);
    const result = await h.turn({ conversationId: id, message: 'try again' });
    expect(result).toMatchObject({ state: 'COMPLETED', payload: { value: 'Done.' } });
    expect((await h.conversation(id))?.inputParams).toMatchObject({
      routing_decision: 'RETRY_IN_PLACE',
      dialogue_act: 'NEW_REQUEST',
    });
    expectInOrder(await h.stages(id), [
      'CORRECTION_STEP_RETRY_REQUESTED',
      'INTENT_RESOLVE_SKIPPED_POLICY',
      'MCP_CONTEXT_CLEARED',
      'MCP_TOOL_CALL',
      'MCP_FINAL_ANSWER',
      'RULE_APPLIED (McpToolStep)',
    ]);
    expect(h.llm.requestsOf('SCHEMA')).toHaveLength(0);
    expect(h.llm.requestsOf('INTENT')).toHaveLength(0);
  });
});
