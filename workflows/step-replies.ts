import { ApplicationFailure } from '@temporalio/workflow';
import type { StepInput, StepOutput, StepReply, StepResult } from '../core/turn/contracts';
import type { StepRunResult } from '../core/turn/step-runs';
import {
  STEP_RESULT_MALFORMED,
  stepOutputProblem,
  stepResultProblem,
  stepRunResultProblem,
} from '../core/turn/step-result-shape';

/**
 * The turn's failure for an answer that is no step result (core/turn/step-result-shape.ts): typed, final, naming the
 * step (its StepRunFailure-like detail names it for turnFailureFacts and the API), so the turn fails and records it
 * like any other failure, instead of failing every workflow task on it while it holds the conversation.
 */
function malformed(step: string, callKey: string, problem: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: STEP_RESULT_MALFORMED,
    message: `${step} answered with no step result the turn can use (${problem})`,
    nonRetryable: true,
    details: [{ failedStep: { name: step, callKey } }],
  });
}

/** Every step answer conversationTurnV2 takes, checked here before the workflow reads it. */
export function checkedStepReply<O extends StepOutput>(
  step: string,
  callKey: string,
  reply: StepReply<O>
): StepResult<O> {
  const problem = stepResultProblem(reply);
  if (problem) throw malformed(step, callKey, problem);
  return reply as StepResult<O>;
}

/** Every step run's answer (LocalSteps, RegularSteps), checked here, its steps' results with it. */
export function checkedStepRunResult(lead: string, callKey: string, result: unknown): StepRunResult {
  const problem = stepRunResultProblem(result);
  if (problem) throw malformed(lead, callKey, problem);
  return result as StepRunResult;
}

/** Every step answer conversationTurn (v1) takes, the whole session, checked here before the workflow reads it. */
export function checkedStepOutput<O extends StepOutput>(step: string, input: StepInput, reply: StepReply<O>): O {
  const problem = stepOutputProblem(reply);
  if (problem) throw malformed(step, input.callKey, problem);
  return reply as O;
}
