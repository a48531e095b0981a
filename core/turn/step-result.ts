import type { Session } from '../session';
import type { StepOutput, StepReply, StepResult } from './contracts';
import { applySessionPatch, diffSession, patchedPaths } from './patch';

/**
 * The StepResult of an output produced from `before` (activity side of conversationTurnV2), with the
 * last progress message the step published, if any (the workflow shows it as current details).
 */
export function toStepResult<O extends StepOutput>(
  before: Session,
  output: O,
  durationMs: number,
  progress?: string
): StepResult<O> {
  const { session, audits: _written, ...rest } = output;
  // stepInfos is the workflow's own bookkeeping (StepCalls.output), not part of the patch.
  const patch = diffSession(before, { ...session, stepInfos: before.stepInfos });
  return {
    ...rest,
    patch,
    durationMs,
    summary: {
      outcome: output.stop ? 'Stop' : 'Continue',
      intent: session.intent,
      state: session.state,
      changed: patchedPaths(patch),
      ...(progress !== undefined ? { progress } : {}),
    },
  };
}

export function isStepResult<O extends StepOutput>(reply: StepReply<O>): reply is StepResult<O> {
  return 'patch' in reply;
}

/**
 * Back to the driver's StepOutput: the session the step was given, with the step's patch applied.
 * The audits were written by the step itself, so none come back.
 */
export function fromStepResult<O extends StepOutput>(sent: Session, reply: StepReply<O>): O {
  if (!isStepResult(reply)) return reply;
  const { patch, summary: _summary, durationMs: _timed, ...rest } = reply;
  return { ...rest, session: applySessionPatch(sent, patch), audits: [] } as unknown as O;
}
