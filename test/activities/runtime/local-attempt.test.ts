import { EngineError, ErrorType } from '../../../core/errors';
import type { LlmClient } from '../../../core/llm';
import { createTaskRegistry } from '../../../core/tasks/registry';
import type { ActivityDeps } from '../../../activities/deps';
import { LocalAttempt, runningAsLocalActivity } from '../../../activities/runtime/local-attempt';

function depsWith(calls: string[]): ActivityDeps {
  const llm: LlmClient = {
    generateText: async (req) => (calls.push(`text ${req.kind}`), 'real'),
    generateJson: async (req) => (calls.push(`json ${req.kind}`), { ok: true, json: {}, raw: '{}' }),
  };
  const tasks = createTaskRegistry({ loanTask: { check: () => (calls.push('task'), 'done') } });
  return { llm, tasks } as unknown as ActivityDeps;
}

const request = { kind: 'INTENT', systemPrompt: 's', userPrompt: 'u' } as Parameters<LlmClient['generateJson']>[0];

describe('a local attempt of a local-first step (activities/runtime/local-attempt.ts)', () => {
  it('is not local outside a Temporal activity (the in-process runner)', () => {
    expect(runningAsLocalActivity()).toBe(false);
  });

  it('has nothing to hand over while the step reaches neither the LLM nor consumer code', () => {
    const attempt = new LocalAttempt('Rules', depsWith([]));
    expect(attempt.deps.tasks.resolve('unknownTask', 'run')).toBeUndefined();
    expect(attempt.escalation()).toBeNull();
  });

  it('refuses an LLM call before it is made, and the refusal is remembered even when the step swallows it', async () => {
    const calls: string[] = [];
    const attempt = new LocalAttempt('DialogueAct', depsWith(calls));
    await attempt.deps.llm.generateJson(request).catch(() => 'swallowed by a fallback');
    expect(calls).toEqual([]);
    const escalation = attempt.escalation();
    expect(escalation).toBeInstanceOf(EngineError);
    expect(escalation).toMatchObject({ type: ErrorType.NeedsRegularActivity, retryable: false });
    expect(escalation?.message).toBe('DialogueAct calls the LLM (INTENT)');
  });

  it('refuses a registered consumer task at resolution, so no task code runs', () => {
    const calls: string[] = [];
    const attempt = new LocalAttempt('PendingAction', depsWith(calls));
    expect(() => attempt.deps.tasks.resolve('LOANTASK', 'check')).toThrow(/runs consumer task LOANTASK.check/);
    expect(calls).toEqual([]);
    expect(attempt.escalation()?.message).toMatch(/^PendingAction runs consumer task/);
  });

  it('names the first thing that needed a regular activity', async () => {
    const attempt = new LocalAttempt('ResponseResolution', depsWith([]));
    await attempt.deps.llm.generateText({ ...request, kind: 'RESP_TEXT' }).catch(() => null);
    expect(() => attempt.deps.tasks.resolve('loanTask', 'check')).toThrow();
    expect(attempt.escalation()?.message).toContain('calls the LLM (RESP_TEXT)');
  });
});
