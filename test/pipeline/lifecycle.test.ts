import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { baseConfig, GREETING_REPLY, UNKNOWN_REPLY } from '../support/base-config';
import { classifierRow, intentRow, policyRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

const REJECTED_AGENT = { intent: 'FAQ', confidence: 0.3, intentScores: [{ intent: 'FAQ', confidence: 0.3 }] };

describe('pipeline lifecycle (reference §14 scenarios 1–7)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([]);
    h.llm.clearRequests();
    await h.configure(baseConfig());
  });
  afterEach(() => expect(h.llm.unconsumed()).toEqual([]));

  it('1 (D2) runs the steps in seed order, policy before any LLM call, each exiting with Continue', async () => {
    const result = await h.turn({ message: 'hi' });
    const audits = await h.audits(result.conversationId);
    const entered = audits.filter((a) => a.stage === 'STEP_ENTER').map((a) => a.payload['step']);
    expect(entered).toEqual([
      'LoadOrCreateConversation',
      'ResetConversation',
      'AuditUserInput',
      'PolicyEnforcement',
      'DialogueAct',
      'InteractionPolicy',
      'ActionLifecycle',
      'Correction',
      'Disambiguation',
      'Guardrail',
      'IntentResolution',
      'ResetResolvedIntent',
      'FallbackIntentState',
      'SchemaExtraction',
      'AutoAdvance',
      'PendingAction',
      'ToolOrchestration',
      'McpPrepare',
      'Rules',
      'ResponseResolution',
      'Memory',
      'PersistConversation',
      'PipelineEnd',
    ]);
    const exits = audits.filter((a) => a.stage === 'STEP_EXIT');
    expect(exits).toHaveLength(entered.length);
    expect(exits.every((a) => a.payload['outcome'] === 'Continue' && typeof a.payload['durationMs'] === 'number')).toBe(
      true
    );
  });

  it('2 greets a new conversation and commits row + history', async () => {
    const result = await h.turn({ message: 'hi' });
    expect(result).toMatchObject({
      success: true,
      intent: 'GREETING',
      state: 'IDLE',
      payload: { type: 'TEXT', value: GREETING_REPLY },
    });
    expect(result.conversationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.context).toMatchObject({ mcp: { lifecycle: { status: 'SKIPPED_GREETING' } } });
    const row = await h.conversation(result.conversationId);
    expect(row).toMatchObject({ status: 'RUNNING', intentCode: 'GREETING', stateCode: 'IDLE', turnCount: 1 });
    expect(await h.historyCount(result.conversationId)).toBe(1);
    const stages = await h.stages(result.conversationId);
    expectInOrder(stages, [
      'USER_INPUT',
      'DIALOGUE_ACT_CLASSIFIED',
      'INTENT_CLASSIFICATION_MATCHED',
      'INTENT_RESOLVED_BY_CLASSIFIER',
      'RESOLVE_RESPONSE',
      'RESPONSE_EXACT',
      'ASSISTANT_OUTPUT',
      'MEMORY_UPDATED',
      'ENGINE_RETURN',
      'PIPELINE_TIMING',
    ]);
    expect(stages).not.toContain('MCP_CONTEXT_CLEARED');
    const classified = (await h.audits(result.conversationId)).find((a) => a.stage === 'DIALOGUE_ACT_CLASSIFIED');
    expect(classified?.payload).toMatchObject({ dialogueAct: 'GREETING', source: 'REGEX' });
  });

  it('3 rejects a low-confidence agent answer and replies with the UNKNOWN response', async () => {
    h.llm.push([{ kind: 'INTENT', reply: REJECTED_AGENT }]);
    const result = await h.turn({ message: 'qwerty' });
    expect(result).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN', payload: { value: UNKNOWN_REPLY } });
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'INTENT_AGENT_REJECTED')?.payload).toMatchObject({ confidence: 0.3 });
    expectInOrder(await h.stages(result.conversationId), [
      'INTENT_AGENT_LLM_INPUT',
      'INTENT_AGENT_LLM_OUTPUT',
      'INTENT_AGENT_REJECTED',
      'INTENT_RESOLVE_NO_CHANGE',
    ]);
  });

  it.each([
    ['an intent that is not allowed', { intent: 'REFUND', confidence: 0.9 }, 'Intent not in allowed intents'],
    ['text that is not JSON', 'I think it is about refunds.', 'invalid json'],
  ])('3 variant: rejects %s', async (_label, reply, reason) => {
    h.llm.push([{ kind: 'INTENT', reply }]);
    const result = await h.turn({ message: 'qwerty' });
    expect(result.intent).toBe('UNKNOWN');
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'INTENT_AGENT_REJECTED')?.payload['reason']).toBe(reason);
  });

  it('4 fails the turn without a response mapping and commits nothing', async () => {
    const config = baseConfig();
    await h.configure({ ...config, responses: config.responses?.filter((r) => r.intentCode !== 'UNKNOWN') });
    h.llm.push([{ kind: 'INTENT', reply: REJECTED_AGENT }]);
    const conversationId = randomUUID();
    const err = await h.turn({ conversationId, message: 'qwerty' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'RESPONSE_MAPPING_NOT_FOUND', nonRetryable: true });
    const audits = await h.audits(conversationId);
    expectInOrder(
      audits.map((a) => a.stage),
      ['RESPONSE_MAPPING_NOT_FOUND', 'STEP_ERROR', 'ENGINE_KNOWN_FAILURE']
    );
    // The turn's failure is its last row, as the Java controller's (a non-retryable error: no retry follows).
    expect(audits.at(-1)).toMatchObject({
      stage: 'ENGINE_KNOWN_FAILURE',
      payload: { step: 'ResponseResolution', errorCode: 'RESPONSE_MAPPING_NOT_FOUND', recoverable: false, attempt: 1 },
    });
    expect(audits.find((a) => a.stage === 'STEP_ERROR')?.payload).toMatchObject({
      step: 'ResponseResolution',
      errorType: 'RESPONSE_MAPPING_NOT_FOUND',
    });
    expect(audits.map((a) => a.stage)).not.toContain('ENGINE_RETURN');
    expect(await h.historyCount(conversationId)).toBe(0);
    expect((await h.conversation(conversationId))?.turnCount).toBe(0);
  });

  describe('5 explicit resets', () => {
    const seeded = async () => {
      const id = randomUUID();
      await h.seedConversation(id, {
        intentCode: 'FAQ',
        stateCode: 'IDLE',
        contextJson: { x: 1 },
        inputParamsJson: { kept: 'yes' },
      });
      return id;
    };

    it('(a) reset flag: CONVERSATION_RESET before USER_INPUT, context rebuilt, greeting answered', async () => {
      const id = await seeded();
      const result = await h.turn({ conversationId: id, message: 'hello', reset: true });
      expect(result).toMatchObject({ intent: 'GREETING', state: 'IDLE' });
      expect(result.context['x']).toBeUndefined();
      const audits = await h.audits(id);
      expect(audits.find((a) => a.stage === 'CONVERSATION_RESET')?.payload['reason']).toBe('INPUT_PARAM:reset');
      expectInOrder(await h.stages(id), ['CONVERSATION_RESET', 'USER_INPUT']);
      expect((await h.conversation(id))?.inputParams['kept']).toBeUndefined();
    });

    it('(b) "/reset" text command: the turn continues from UNKNOWN', async () => {
      const id = await seeded();
      h.llm.push([{ kind: 'INTENT', reply: REJECTED_AGENT }]);
      const result = await h.turn({ conversationId: id, message: '/reset' });
      expect(result).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN', payload: { value: UNKNOWN_REPLY } });
      const audits = await h.audits(id);
      expect(audits.find((a) => a.stage === 'CONVERSATION_RESET')?.payload['reason']).toBe('USER_TEXT_COMMAND');
      expect(result.context['x']).toBeUndefined();
    });

    it('(c) a resolved RESET_SESSION intent resets after intent resolution', async () => {
      await h.configure(
        baseConfig({
          intents: [intentRow('RESET_SESSION', 5)],
          classifiers: [
            classifierRow({
              intentCode: 'RESET_SESSION',
              stateCode: 'IDLE',
              ruleType: 'CONTAINS',
              pattern: 'start fresh',
            }),
          ],
        })
      );
      const id = await seeded();
      const result = await h.turn({ conversationId: id, message: 'let us start fresh' });
      expect(result).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN', payload: { value: UNKNOWN_REPLY } });
      const audits = await h.audits(id);
      expect(audits.find((a) => a.stage === 'CONVERSATION_RESET')?.payload['reason']).toBe('INTENT_RESOLVED_RESET');
      expectInOrder(await h.stages(id), ['INTENT_RESOLVED_BY_CLASSIFIER', 'CONVERSATION_RESET', 'RESOLVE_RESPONSE']);
    });
  });

  it('6 (D2) a policy block stops before any LLM call and the blocked turn is committed whole', async () => {
    await h.configure(
      baseConfig({
        policies: [
          policyRow({
            policyId: 7,
            pattern: '(?i)password',
            responseText: "I can't help with credentials.",
            priority: 1,
          }),
        ],
      })
    );
    const result = await h.turn({ message: 'what is my password' });
    expect(result).toMatchObject({
      payload: { type: 'TEXT', value: "I can't help with credentials." },
      outcome: 'POLICY_BLOCKED',
    });
    expect(h.llm.requests).toHaveLength(0);
    const audits = await h.audits(result.conversationId);
    expect(audits.find((a) => a.stage === 'POLICY_BLOCK')?.payload).toMatchObject({
      policyId: 7,
      ruleType: 'REGEX',
      pattern: '(?i)password',
    });
    const exit = audits.find((a) => a.stage === 'STEP_EXIT' && a.payload['step'] === 'PolicyEnforcement');
    expect(exit?.payload['outcome']).toBe('Stop');
    const stages = audits.map((a) => a.stage);
    for (const absent of ['DIALOGUE_ACT_CLASSIFIED', 'INTENT_RESOLVE_START', 'ASSISTANT_OUTPUT', 'MEMORY_UPDATED'])
      expect(stages).not.toContain(absent);
    // Adaptation: the commit steps still run, so the turn is recorded (row, history, ENGINE_RETURN).
    expectInOrder(stages, ['USER_INPUT', 'POLICY_BLOCK', 'ENGINE_RETURN', 'PIPELINE_TIMING']);
    expect(await h.conversation(result.conversationId)).toMatchObject({
      status: 'BLOCKED',
      turnCount: 1,
      lastAssistantJson: { type: 'TEXT', value: "I can't help with credentials." },
    });
    expect(await h.historyCount(result.conversationId)).toBe(1);
  });

  it('6 (§1.2 step 26) the next turn that completes stores status RUNNING again', async () => {
    await h.configure(
      baseConfig({ policies: [policyRow({ pattern: '(?i)password', responseText: 'No.', priority: 1 })] })
    );
    const blocked = await h.turn({ message: 'what is my password' });
    const { conversationId } = blocked;
    expect((await h.conversation(conversationId))?.status).toBe('BLOCKED');
    const next = await h.turn({ conversationId, message: 'hi' });
    expect(next).toMatchObject({ intent: 'GREETING', payload: { value: GREETING_REPLY } });
    expect(await h.conversation(conversationId)).toMatchObject({ status: 'RUNNING', turnCount: 2 });
    await h.turn({ conversationId, message: 'my password again' });
    expect(await h.conversation(conversationId)).toMatchObject({ status: 'BLOCKED', turnCount: 3 });
  });

  it('21 config with an undeclared state is refused at load, listing the bad row; the served config stays', async () => {
    const config = baseConfig();
    const refused = await h.configure({ ...config, rules: [] }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ type: 'CONFIG_INVALID' });
    expect(String((refused as Error).message)).toMatch(/ce_response\[1\].*invalid state_code=IDLE/);
    const result = await h.turn({ message: 'hi' });
    expect(result.payload.value).toBe(GREETING_REPLY);
  });

  it('7 stores audits in order, each payload carrying _meta', async () => {
    const result = await h.turn({ message: 'hi' });
    const audits = await h.audits(result.conversationId);
    const ids = audits.map((a) => a.auditId);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    for (const a of audits) {
      expect(a.payload['_meta']).toMatchObject({
        stage: a.stage,
        conversationId: result.conversationId,
        turnNumber: 1,
      });
      expect(typeof (a.payload['_meta'] as Record<string, unknown>)['intent']).toBe('string');
      expect(typeof (a.payload['_meta'] as Record<string, unknown>)['state']).toBe('string');
    }
    const matched = audits.find((a) => a.stage === 'INTENT_CLASSIFICATION_MATCHED');
    expect(matched?.payload['_meta']).toMatchObject({ intent: 'UNKNOWN', state: 'UNKNOWN' });
  });
});
