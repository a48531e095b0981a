import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { configRow, intentRow, pendingActionRow, responseRow, ruleRow } from '../support/config-rows';
import { expectInOrder, PipelineHarness } from '../support/pipeline-harness';

const CANCEL = 'CANCEL_ORDER';
const executed: string[] = [];
let failTask = false;

const pendingConfig = (extraActions = 0) =>
  baseConfig({
    intents: [intentRow(CANCEL, 20)],
    pendingActions: [
      pendingActionRow({
        intentCode: CANCEL,
        stateCode: 'CONFIRM_CANCEL',
        actionKey: 'stripe_cancel',
        beanName: 'stripeCancelTask',
        methodNames: 'execute',
        priority: 10,
        description: 'cancel in Stripe',
      }),
      ...(extraActions > 0
        ? [
            pendingActionRow({
              intentCode: CANCEL,
              stateCode: 'CONFIRM_CANCEL',
              actionKey: 'refund',
              beanName: 'refundTask',
              priority: 10,
              description: 'refund the order',
            }),
          ]
        : []),
    ],
    rules: [
      ruleRow({
        ruleId: 2901,
        intentCode: CANCEL,
        stateCode: 'CONFIRM_CANCEL',
        ruleType: 'JSON_PATH',
        matchPattern: "$[?(@.inputParams.pending_action_result == 'EXECUTED')]",
        action: 'SET_STATE',
        actionValue: 'CANCELLED',
      }),
    ],
    responses: [
      responseRow({ intentCode: CANCEL, stateCode: 'CANCELLED', exactText: 'Your order is cancelled.' }),
      responseRow({
        intentCode: CANCEL,
        stateCode: 'CONFIRM_CANCEL',
        exactText: 'Cancel? {{pendingClarificationQuestion}}',
      }),
    ],
  });

describe('pending actions and guardrail (reference §14 scenarios 29–31)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start({
      tasks: {
        stripeCancelTask: {
          execute: ({ session }) => {
            if (failTask) throw new Error('stripe down');
            executed.push(session.conversationId);
            return { cancelled: true };
          },
        },
      },
    });
  });
  afterAll(async () => h.stop());
  beforeEach(async () => {
    h.llm.setScript([{ kind: 'INTENT', reply: { intent: null, confidence: 0 }, persistent: true }]);
    h.llm.clearRequests();
    executed.length = 0;
    failTask = false;
    await h.configure(pendingConfig());
  });

  const seeded = async (extra: { turnCount?: number; context?: object } = {}) => {
    const id = randomUUID();
    await h.seedConversation(id, {
      intentCode: CANCEL,
      stateCode: 'CONFIRM_CANCEL',
      turnCount: extra.turnCount ?? 0,
      contextJson: extra.context ?? {},
    });
    return id;
  };
  const payloadOf = async (id: string, stage: string) => (await h.audits(id)).find((a) => a.stage === stage)?.payload;

  it('29 "yes" executes the pending action task; a rule reacts to the result', async () => {
    const id = await seeded();
    const result = await h.turn({ conversationId: id, message: 'yes' });
    expect(executed).toEqual([id]);
    expect(result).toMatchObject({
      state: 'CANCELLED',
      payload: { value: 'Your order is cancelled.' },
      context: { pending_action_runtime: { status: 'EXECUTED' } },
    });
    expect(await payloadOf(id, 'INTERACTION_POLICY_DECIDED')).toMatchObject({
      policyDecision: 'EXECUTE_PENDING_ACTION',
      skipIntentResolution: true,
      hasPendingAction: true,
    });
    const lifecycle = (await h.audits(id))
      .filter((a) => a.stage === 'PENDING_ACTION_LIFECYCLE')
      .map((a) => a.payload['event']);
    expect(lifecycle).toEqual(['OPEN', 'IN_PROGRESS']);
    expect(await payloadOf(id, 'PENDING_ACTION_EXECUTED')).toMatchObject({
      pendingActionRef: 'stripeCancelTask:execute',
      pendingActionResult: 'EXECUTED',
    });
    expectInOrder(await h.stages(id), [
      'INTERACTION_POLICY_DECIDED',
      'PENDING_ACTION_LIFECYCLE',
      'INTENT_RESOLVE_SKIPPED_POLICY',
      'PENDING_ACTION_EXECUTED',
      'RULE_APPLIED (RulesStep)',
    ]);
    expect(h.llm.requests).toHaveLength(0);
  });

  it('29 "no" rejects it; a failing task is recorded as FAILED, not a crash', async () => {
    const rejected = await seeded();
    const r1 = await h.turn({ conversationId: rejected, message: 'no' });
    expect(executed).toEqual([]);
    expect(r1.context).toMatchObject({ pending_action_runtime: { status: 'REJECTED' } });
    expect(await payloadOf(rejected, 'PENDING_ACTION_REJECTED')).toMatchObject({
      policyDecision: 'REJECT_PENDING_ACTION',
      pendingActionResult: 'REJECTED',
    });

    failTask = true;
    const failing = await seeded();
    const r2 = await h.turn({ conversationId: failing, message: 'yes' });
    expect(r2.state).toBe('CONFIRM_CANCEL');
    expect(await payloadOf(failing, 'PENDING_ACTION_FAILED')).toMatchObject({
      pendingActionResult: 'FAILED',
      reason: 'task execution failed: stripe down',
    });
  });

  it('30 two equally eligible actions: a disambiguation question instead of executing', async () => {
    await h.configure(pendingConfig(1));
    const id = await seeded();
    const result = await h.turn({ conversationId: id, message: 'yes' });
    const question =
      'I found multiple actions. Which one should I execute: stripe_cancel (cancel in Stripe), refund (refund the order)?';
    expect(executed).toEqual([]);
    expect(result).toMatchObject({
      state: 'CONFIRM_CANCEL',
      payload: { value: `Cancel? ${question}` },
      context: { pending_clarification: { question, reason: 'PENDING_ACTION_DISAMBIGUATION' } },
    });
    expect(await payloadOf(id, 'DISAMBIGUATION_REQUIRED')).toMatchObject({
      reason: 'MULTIPLE_PENDING_ACTIONS',
      options: ['stripe_cancel (cancel in Stripe)', 'refund (refund the order)'],
    });
    expect((await h.conversation(id))?.inputParams['policy_decision']).toBe('RECLASSIFY_INTENT');
  });

  it('30 an LLM question cut off at max_tokens gives way to the template question', async () => {
    const config = pendingConfig(1);
    config.configs = [...(config.configs ?? []), configRow('DisambiguationStep', 'ENABLE_LLM', 'true')];
    await h.configure(config);
    h.llm.push([{ kind: 'DISAMBIGUATION', reply: 'Which one: stripe_can', stopReason: 'max_tokens' }]);
    const id = await seeded();
    await h.turn({ conversationId: id, message: 'yes' });
    expect(await payloadOf(id, 'DISAMBIGUATION_REQUIRED')).toMatchObject({
      question: expect.stringMatching(/^I found multiple actions\. Which one should I execute: stripe_cancel/),
    });
    expect(h.llm.requestsOf('DISAMBIGUATION')).toHaveLength(1);
  });

  it('30 an open pending action expires after its TTL in turns, then reopens', async () => {
    const id = await seeded({
      turnCount: 3,
      context: {
        pending_action_runtime: {
          status: 'OPEN',
          action_key: '',
          action_ref: 'stripeCancelTask:execute',
          created_turn: 1,
          expires_turn: 4,
          expires_at_epoch_ms: -1,
        },
      },
    });
    const result = await h.turn({ conversationId: id, message: 'what is happening' });
    const events = (await h.audits(id))
      .filter((a) => a.stage === 'PENDING_ACTION_LIFECYCLE')
      .map((a) => a.payload['event']);
    expect(events).toEqual(['EXPIRED', 'OPEN']);
    expect(result.context).toMatchObject({
      pending_action_runtime: { status: 'OPEN', created_turn: 4, expires_turn: 7 },
    });
  });

  describe('31 guardrail approval gate', () => {
    const guarded = () =>
      baseConfig({
        configs: [
          configRow('GuardrailStep', 'SENSITIVE_PATTERNS', '["(?i)delete account"]'),
          configRow('GuardrailStep', 'REQUIRE_APPROVAL_FOR_SENSITIVE_ACTIONS', 'true'),
        ],
      });

    it('denies a sensitive message without approval: tools skipped for this turn only (§13.3 #10 fixed)', async () => {
      await h.configure(guarded());
      const first = await h.turn({ message: 'please delete account now' });
      expect(await payloadOf(first.conversationId, 'GUARDRAIL_DENY')).toMatchObject({
        reason: 'SENSITIVE_ACTION_APPROVAL_REQUIRED',
        sensitive: true,
        approvalGranted: false,
      });
      expect(first.context).toMatchObject({ mcp: { lifecycle: { status: 'SKIPPED_BY_GUARDRAIL' } } });
      const denied = (await h.audits(first.conversationId)).find((a) => a.stage === 'GUARDRAIL_DENY');
      expect(denied?.payload['_meta']).toMatchObject({
        inputParams: { guardrail_blocked: true, skip_tool_execution: true },
      });
      expect((await h.conversation(first.conversationId))?.inputParams['skip_tool_execution']).toBeUndefined();

      const second = await h.turn({ conversationId: first.conversationId, message: 'what is new' });
      expect(await payloadOf(second.conversationId, 'GUARDRAIL_ALLOW')).toBeDefined();
      expect((second.context['mcp'] as Record<string, Record<string, unknown>>)['lifecycle']?.['status']).toBe(
        'NO_TOOLS_FOR_SCOPE'
      );
    });

    it('allows it with approval_granted=true', async () => {
      await h.configure(guarded());
      const result = await h.turn({ message: 'please delete account now', inputParams: { approval_granted: true } });
      expect(await payloadOf(result.conversationId, 'GUARDRAIL_ALLOW')).toMatchObject({
        sensitive: true,
        approvalRequired: true,
        approvalGranted: true,
      });
    });

    it('skips a decided pending action while blocked', async () => {
      const config = pendingConfig();
      config.configs = [
        ...(config.configs ?? []),
        configRow('GuardrailStep', 'SENSITIVE_PATTERNS', '["(?i)^yes$"]'),
        configRow('GuardrailStep', 'REQUIRE_APPROVAL_FOR_SENSITIVE_ACTIONS', 'true'),
      ];
      await h.configure(config);
      const id = await seeded();
      await h.turn({ conversationId: id, message: 'yes' });
      expect(executed).toEqual([]);
      expect(await payloadOf(id, 'PENDING_ACTION_SKIPPED')).toMatchObject({
        reason: 'pending action skipped by guardrail',
      });
    });
  });
});
