import { createTaskRegistry } from '../../../core/tasks/registry';
import { StepScope } from '../../../core/step/scope';
import { systemClock, type ActivityDeps } from '../../../activities/deps';
import { responseResolution } from '../../../activities/pipeline/response-resolution';
import { DEFAULT_RESERVED_TEXTS } from '../../../core/response/reserved';
import type { StepContext } from '../../../activities/step-runtime';
import { responseRow, sessionFor, snapshotOf, turnInput } from '../../support/config-rows';

/** EXACT rendering fallbacks (scenario 53): a malformed template cannot pass config validation, so the step is driven directly. */
describe('EXACT response rendering', () => {
  const deps = { clock: systemClock, tasks: createTaskRegistry() } as unknown as ActivityDeps;
  const ctxFor = (exactText: string, context: Record<string, unknown>): StepContext => {
    const session = sessionFor('x', { intent: 'X', state: 'S', context: context as never });
    return {
      input: { turn: turnInput('x'), session, callKey: 'c' },
      snapshot: snapshotOf({ responses: [responseRow({ responseId: 9, intentCode: 'X', stateCode: 'S', exactText })] }),
      deps,
      scope: new StepScope(session),
    };
  };

  it('a malformed template falls back to context.mcp.finalAnswer and is audited', async () => {
    const out = await responseResolution(ctxFor('Hello [[${context.customerId}', { mcp: { finalAnswer: 'FA' } }));
    expect(out.session.payload).toEqual({ type: 'TEXT', value: 'FA' });
    const audit = out.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING');
    expect(audit?.payload).toMatchObject({
      fallbackUsed: true,
      errorClass: 'TEMPLATE_MALFORMED',
      templatePreview: 'Hello [[${context.customerId}',
    });
    expect(out.audits.map((a) => a.stage)).toEqual([
      'RESOLVE_RESPONSE',
      'EXACT_RESPONSE_RENDERING',
      'RESPONSE_EXACT',
      'ASSISTANT_OUTPUT',
    ]);
  });

  it('without a final answer the raw text of a malformed template is the reply', async () => {
    const raw = await responseResolution(ctxFor('Broken {{x', {}));
    expect(raw.session.payload).toEqual({ type: 'TEXT', value: 'Broken {{x' });
  });

  it('an absent value renders as empty or its default and an audit names it; the turn does not fail (item 2)', async () => {
    const out = await responseResolution(
      ctxFor("Hi {{context.nobody}}! Answer: {{context.mcp.finalAnswer ?: 'none yet'}}", {})
    );
    expect(out.session.payload).toEqual({ type: 'TEXT', value: 'Hi ! Answer: none yet' });
    const audit = out.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING');
    expect(audit?.payload).toMatchObject({
      fallbackUsed: false,
      responseId: 9,
      missingVariables: ['context.nobody', 'context.mcp.finalAnswer'],
    });
  });

  it('a reply that renders blank falls back to context.mcp.finalAnswer when there is one', async () => {
    const withAnswer = await responseResolution(ctxFor('[[${context.summary}]]', { mcp: { finalAnswer: 'FA' } }));
    expect(withAnswer.session.payload).toEqual({ type: 'TEXT', value: 'FA' });
    expect(withAnswer.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toMatchObject({
      fallbackUsed: true,
      fallback: 'MCP_FINAL_ANSWER',
      reason: 'RENDERED_BLANK',
      missingVariables: ['context.summary'],
    });
  });

  // Seed "stale move ID bug": once McpPrepare cleared an earlier turn's answer, `[[${context.mcp.finalAnswer}]]` renders
  // blank on a turn whose planner was skipped. The user is told what a turn without a reply tells them, never nothing.
  it.each([
    ['an absent value', '[[${context.mcp.finalAnswer}]]', {}, ['context.mcp.finalAnswer']],
    ['an empty value', '[[${context.mcp.finalAnswer}]]', { mcp: { finalAnswer: '' } }, undefined],
    ['whitespace', ' {{context.note}} ', { note: ' ' }, undefined],
  ])(
    'a reply that renders blank (%s) without a final answer says the TURN_FAILED text',
    async (_l, text, context, missing) => {
      const blank = await responseResolution(ctxFor(text, context));
      expect(blank.session.payload).toEqual({ type: 'TEXT', value: DEFAULT_RESERVED_TEXTS.TURN_FAILED });
      expect(blank.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toEqual({
        component: 'ResponseResolutionStep',
        responseId: 9,
        templatePreview: text,
        fallbackUsed: true,
        fallback: 'TURN_FAILED_TEXT',
        reason: 'RENDERED_BLANK',
        ...(missing ? { missingVariables: missing } : {}),
      });
      expect(blank.audits.find((a) => a.stage === 'RESPONSE_EXACT')?.payload['text']).toBe(
        DEFAULT_RESERVED_TEXTS.TURN_FAILED
      );
    }
  );

  // A direct tool's reply in a later turn that ran no tool: the text would repeat what the earlier turn's tool found
  // ("Order  is SUBMITTED"), so the turn says what a turn without a reply says, or this turn's planner answer.
  describe("a placeholder reading a tool's or the planner's output this turn does not have", () => {
    const SUBMITTED = 'Order [[${context.mcp.toolExecution.result.mapped.orderId}]] is SUBMITTED.';

    it.each([
      ['the direct tool result', SUBMITTED],
      ['the flattened mcp root', 'Order [[${mcp.toolExecution.result.mapped.orderId}]] is SUBMITTED.'],
      ["the request's tool_result", 'Order {{tool_result.result.mapped.orderId}} is SUBMITTED.'],
      ['the observations', 'Found {{context.mcp.observations[0].result.rowCount}} rows.'],
      ['the planner answer', 'Done: {{context.mcp.finalAnswer}}'],
    ])('is not sent (%s): the TURN_FAILED text, audited TURN_OUTPUT_MISSING', async (_l, text) => {
      const out = await responseResolution(ctxFor(text, { mcp: { lifecycle: { status: 'NO_TOOLS_FOR_SCOPE' } } }));
      expect(out.session.payload).toEqual({ type: 'TEXT', value: DEFAULT_RESERVED_TEXTS.TURN_FAILED });
      expect(out.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toMatchObject({
        fallbackUsed: true,
        fallback: 'TURN_FAILED_TEXT',
        reason: 'TURN_OUTPUT_MISSING',
      });
    });

    it("falls back to this turn's planner answer when there is one", async () => {
      const out = await responseResolution(ctxFor(SUBMITTED, { mcp: { finalAnswer: 'ORD-1 is SHIPPED.' } }));
      expect(out.session.payload).toEqual({ type: 'TEXT', value: 'ORD-1 is SHIPPED.' });
    });

    it('renders as written when the tool ran this turn, or when the placeholder has a default', async () => {
      const ran = { mcp: { toolExecution: { result: { mapped: { orderId: 'ORD-7017' } } } } };
      expect((await responseResolution(ctxFor(SUBMITTED, ran))).session.payload).toEqual({
        type: 'TEXT',
        value: 'Order ORD-7017 is SUBMITTED.',
      });
      const defaulted = "Status: [[${context.mcp.toolExecution.result.mapped.status ?: 'not checked this time'}]]";
      expect((await responseResolution(ctxFor(defaulted, {}))).session.payload).toEqual({
        type: 'TEXT',
        value: 'Status: not checked this time',
      });
    });
  });

  it("the blank-reply text is the config's TURN_FAILED row for the intent (or ANY), rendered", async () => {
    const ctx = ctxFor('[[${context.mcp.finalAnswer}]]', {});
    const turnFailed = responseRow({
      responseId: 10,
      intentCode: 'ANY',
      stateCode: 'TURN_FAILED',
      exactText: 'Nothing to add for {{intent}} right now.',
    });
    ctx.snapshot.rows.responses.push(turnFailed);
    const out = await responseResolution(ctx);
    expect(out.session.payload).toEqual({ type: 'TEXT', value: 'Nothing to add for X right now.' });
  });
});
