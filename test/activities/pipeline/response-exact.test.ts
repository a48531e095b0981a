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

  it('without a final answer the raw text is the reply; an unresolved variable is an error, not a fallback', async () => {
    const raw = await responseResolution(ctxFor('Broken {{x', {}));
    expect(raw.session.payload).toEqual({ type: 'TEXT', value: 'Broken {{x' });
    await expect(responseResolution(ctxFor('Hi {{context.nobody}}', {}))).rejects.toMatchObject({
      type: 'UNRESOLVED_PROMPT_VARIABLE',
    });
  });
});
