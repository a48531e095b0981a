import { stepOutputProblem, stepResultProblem, stepRunResultProblem } from '../../../core/turn/step-result-shape';
import { toStepResult } from '../../../core/turn/step-result';
import { blankSession } from '../../../core/turn/session-factory';
import type { TurnInput } from '../../../core/turn/contracts';

const turn = {
  conversationId: 'c',
  turnNumber: 1,
  turnId: 'turn-c-1',
  message: 'hi',
  inputParams: {},
  requestContext: {},
} as unknown as TurnInput;
const session = blankSession(turn);
const result = toStepResult(session, { session: { ...session, intent: 'LOAN' }, audits: [] }, 3, 'working');

describe('the shape of a step answer the workflow takes (core/turn/step-result-shape.ts)', () => {
  it('takes what the step runtime answers, and a step run of such answers', () => {
    expect(stepResultProblem(result)).toBeNull();
    expect(stepResultProblem({ ...result, stop: { outcome: 'ANSWERED' } })).toBeNull();
    const run = { ran: [{ name: 'Rules', callKey: '07-Rules', result, durationMs: 2 }], handedOver: null };
    expect(stepRunResultProblem(run)).toBeNull();
    const handed = { name: 'DialogueAct', callKey: '08-DialogueAct', reason: 'calls the LLM' };
    expect(stepRunResultProblem({ ...run, handedOver: handed })).toBeNull();
  });

  it.each([
    [{ hello: 'world' }, 'it has no patch object'],
    [null, 'it is not an object'],
    ['done', 'it is not an object'],
    [{ ...result, patch: { set: [1] } }, 'patch.set is not an object'],
    [{ ...result, patch: { unset: 'intent' } }, 'patch.unset is not a list of names'],
    [{ ...result, patch: { context: { unset: [1] } } }, 'patch.context.unset is not a list of names'],
    [{ ...result, summary: undefined }, 'it has no summary object'],
    [{ ...result, summary: { progress: 5 } }, 'summary.progress is no text'],
    [{ ...result, durationMs: 'soon' }, 'durationMs is not a number'],
    [{ ...result, directToolCall: { call: {} } }, 'directToolCall has no call and tool'],
  ])('refuses %j: %s', (value, problem) => {
    expect(stepResultProblem(value)).toBe(problem);
  });

  it.each([
    [{ hello: 'world' }, 'ran is not a list of steps with their durations'],
    [{ ran: [{ name: 'Rules', result, durationMs: 1 }], handedOver: null }, 'ran[0] has no callKey'],
    [
      { ran: [{ name: 'Rules', callKey: 'k', result: { hello: 1 }, durationMs: 1 }], handedOver: null },
      'ran[0] (Rules): it has no patch object',
    ],
    [{ ran: [], handedOver: 'DialogueAct' }, 'handedOver is neither null nor a step'],
    [{ ran: [], handedOver: { name: 'DialogueAct', callKey: 'k' } }, 'handedOver has no reason'],
  ])('refuses the step run %j: %s', (value, problem) => {
    expect(stepRunResultProblem(value)).toBe(problem);
  });

  it('takes what a step answers conversationTurn (v1): the whole session with its audits', () => {
    const output = { session: { ...session, intent: 'LOAN' }, audits: [] };
    expect(stepOutputProblem(output)).toBeNull();
    expect(
      stepOutputProblem({ ...output, stop: { reason: 'SHORT_CIRCUIT' }, decision: { kind: 'ANSWER' } })
    ).toBeNull();
  });

  it.each([
    [{ hello: 'world' }, 'audits is not a list'],
    [null, 'it is not an object'],
    [result, 'it is a StepResult, which conversationTurn never asks for'],
    [{ audits: [] }, 'it has no session object'],
    [{ session: { ...session, context: null }, audits: [] }, 'session.context is not an object'],
    [{ session: { ...session, inputParams: [] }, audits: [] }, 'session.inputParams is not an object'],
    [{ session: { ...session, intent: 7 }, audits: [] }, 'session.intent is no text'],
    [{ session, audits: [], stop: 'now' }, 'stop is not an object'],
    [{ session, audits: [], directToolCall: { tool: {} } }, 'directToolCall has no call and tool'],
  ])('refuses the v1 answer %j: %s', (value, problem) => {
    expect(stepOutputProblem(value)).toBe(problem);
  });
});
