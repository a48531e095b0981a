import { createTaskRegistry } from '../../../core/tasks/registry';
import { StepScope } from '../../../core/step/scope';
import { systemClock, type ActivityDeps } from '../../../activities/deps';
import { responseResolution } from '../../../activities/pipeline/response-resolution';
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
    const blank = await responseResolution(ctxFor('[[${context.mcp.finalAnswer}]]', {}));
    expect(blank.session.payload).toEqual({ type: 'TEXT', value: '' });
    const withAnswer = await responseResolution(ctxFor('[[${context.summary}]]', { mcp: { finalAnswer: 'FA' } }));
    expect(withAnswer.session.payload).toEqual({ type: 'TEXT', value: 'FA' });
    expect(withAnswer.audits.find((a) => a.stage === 'EXACT_RESPONSE_RENDERING')?.payload).toMatchObject({
      fallbackUsed: true,
      missingVariables: ['context.summary'],
    });
  });
});
