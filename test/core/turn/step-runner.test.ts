import type { StepInput, StepReply, StepResult } from '../../../core/turn/contracts';
import { StepRunner, type StepRunKind, type StepRunPort, type StepRunsIn } from '../../../core/turn/step-runner';
import type { PlannedStep, RunStepName, StepRunInput, StepRunResult } from '../../../core/turn/step-runs';

const summary = { outcome: 'Continue' as const, intent: 'I', state: 'S', changed: [] };
const reply = (name: string): StepResult => ({ patch: { set: { state: name } }, summary });
const REGULAR = new Set<RunStepName>(['PersistConversation', 'McpPrepare']);

interface Call {
  how: string;
  steps: string[];
  summary: string;
  carried?: unknown;
}

/** A port that records what it was asked; `handsOver` steps reach the LLM when attempted locally. */
function fakePort(runs: StepRunsIn, handsOver: RunStepName[] = []): { port: StepRunPort; calls: Call[] } {
  const calls: Call[] = [];
  const port: StepRunPort = {
    runsIn: () => runs,
    runsLocally: (name) => !REGULAR.has(name),
    async runSteps(kind: StepRunKind, input: StepRunInput, s: string): Promise<StepRunResult> {
      calls.push({ how: kind, steps: input.steps.map((p) => p.name), summary: s, carried: input.decisions });
      const ran = [];
      for (const [i, step] of input.steps.entries()) {
        const refuses = kind === 'local' || i > 0;
        if (refuses && handsOver.includes(step.name)) {
          return { ran, handedOver: { ...step, reason: `${step.name} calls the LLM (X)` } };
        }
        ran.push({ ...step, result: reply(step.name), durationMs: 1 });
      }
      return { ran, handedOver: null };
    },
    async attemptLocally(name, _call, s) {
      calls.push({ how: 'attempt', steps: [name], summary: s });
      return handsOver.includes(name) ? { handOver: `${name} calls the LLM (X)` } : { reply: reply(name) };
    },
    async runRegularly(name, _call, s): Promise<StepReply> {
      calls.push({ how: 'regular', steps: [name], summary: s });
      return reply(name);
    },
  };
  return { port, calls };
}

const planned = (...names: RunStepName[]): PlannedStep[] =>
  names.map((name, i) => ({ name, callKey: `0${i}-${name}` }));
const input = { turn: {}, session: {}, callKey: '' } as unknown as StepInput;

/** Asks for every step in order, as the driver does, and returns what the port was asked. */
async function drive(runner: StepRunner, steps: PlannedStep[], decisions?: unknown): Promise<string[]> {
  const replies: string[] = [];
  for (const [i, step] of steps.entries()) {
    const call = () =>
      ({ ...input, callKey: step.callKey, ...(i === 0 && decisions ? { decisions } : {}) }) as StepInput;
    const out = await runner.run(step, call, steps.slice(i + 1), step.name, runner.take(step));
    replies.push(String((out as StepResult).patch.set?.state));
  }
  return replies;
}

describe('the step runner (core/turn/step-runner.ts)', () => {
  it('runs a local step and the local steps after it as one LocalSteps run, and answers each from it', async () => {
    const { port, calls } = fakePort('wide');
    const steps = planned('Guardrail', 'IntentResolution', 'McpPrepare', 'Rules');
    expect(await drive(new StepRunner(port), steps)).toEqual(['Guardrail', 'IntentResolution', 'McpPrepare', 'Rules']);
    expect(calls.map((c) => [c.how, c.steps])).toEqual([
      ['local', ['Guardrail', 'IntentResolution']],
      ['regular', ['McpPrepare', 'Rules']],
    ]);
    expect(calls[0]?.summary).toBe('LocalSteps: Guardrail, IntentResolution');
    expect(calls[1]?.summary).toBe('McpPrepare; then Rules');
  });

  it('hands a step that reached the LLM to a regular run it leads, with what the run carried when it was first', async () => {
    const { port, calls } = fakePort('wide', ['DialogueAct']);
    const decisions = [{ seq: 1 }];
    await drive(new StepRunner(port), planned('DialogueAct', 'InteractionPolicy', 'Guardrail'), decisions);
    expect(calls.map((c) => [c.how, c.steps, c.carried])).toEqual([
      ['local', ['DialogueAct', 'InteractionPolicy', 'Guardrail'], decisions],
      ['regular', ['DialogueAct', 'InteractionPolicy', 'Guardrail'], decisions],
    ]);
    expect(calls[1]?.summary).toBe('DialogueAct: calls the LLM (X); then InteractionPolicy, Guardrail');
  });

  it('hands a lone local step over to a regular activity of its own', async () => {
    const { port, calls } = fakePort('wide', ['Rules']);
    await drive(new StepRunner(port), planned('Rules', 'PersistConversation'));
    expect(calls.map((c) => [c.how, c.steps, c.summary])).toEqual([
      ['attempt', ['Rules'], 'Rules'],
      ['regular', ['Rules'], 'Rules: calls the LLM (X)'],
      ['regular', ['PersistConversation'], 'PersistConversation'],
    ]);
  });

  it('keeps MCP units out of runs and every regular step alone in histories with pipeline runs only', async () => {
    const { port, calls } = fakePort('pipeline');
    await drive(new StepRunner(port), planned('Guardrail', 'Memory', 'McpFinalize', 'PersistConversation', 'Rules'));
    expect(calls.map((c) => [c.how, c.steps])).toEqual([
      ['local', ['Guardrail', 'Memory']],
      ['attempt', ['McpFinalize']],
      ['regular', ['PersistConversation']],
      ['attempt', ['Rules']],
    ]);
  });

  it('runs every step alone in histories from before step runs', async () => {
    const { port, calls } = fakePort(null);
    await drive(new StepRunner(port), planned('Guardrail', 'Memory', 'PersistConversation', 'Rules'));
    expect(calls.map((c) => c.how)).toEqual(['attempt', 'attempt', 'regular', 'attempt']);
  });
});
