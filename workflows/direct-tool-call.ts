import type { Session } from '../core/session';
import { resolveHeldCall } from '../core/mcp/hold';
import type { DirectToolCallInput, DirectToolCallRequest, StepInput, StepOutput } from '../core/turn/contracts';
import {
  directToolCallInput,
  failedDirectToolCallInput,
  ToolCallFailure,
  type TurnExecutor,
} from '../core/turn/executor';
import { optionsForTool } from './activity-options';
import type { RunningTurn } from './running-turn';
import { toToolFailure } from './turn-units';

/**
 * A request's direct tool (D21): its own activity, retried by the tool's policy, not the step's.
 * Out of retries, it holds for an operator like a planner call (#22) and runs again as
 * resolveHeldCall says; a failure that stands is recorded as the tool's result.
 */
export async function directToolCall(
  turn: RunningTurn,
  exec: Pick<TurnExecutor, 'holdToolCall' | 'record' | 'holdsShutdownCutWrite'>,
  input: StepInput,
  out: StepOutput,
  request: DirectToolCallRequest
): Promise<StepOutput> {
  turn.state.toolCalls += 1;
  const { tool } = request;
  const options = optionsForTool(tool);
  const maxAttempts = options.retry?.maximumAttempts ?? 1;
  const holdable = turn.versions.directToolHold();
  const first = directToolCallInput(input, out, request, maxAttempts, holdable && tool.onRetriesExhausted === 'HOLD');
  const summary = `DirectToolCall: ${tool.toolCode} (${tool.sideEffect})`;
  const session = () => turn.session() ?? first.session;
  const inputs = {
    audit: (suffix: string) => heldStepInput(first, session(), `${first.callKey}${suffix}`),
    call: (suffix: string): DirectToolCallInput => ({
      ...first,
      session: session(),
      callKey: `${first.callKey}${suffix}`,
    }),
  };
  let next = first;
  for (let hold = 1; ; hold++) {
    try {
      return await turn.run('DirectToolCall', next, summary, options);
    } catch (err) {
      const failure = toToolFailure(err, maxAttempts, turn.versions);
      if (!(failure instanceof ToolCallFailure)) throw failure;
      const held = { call: first.call, tool, failure, hold };
      const again = holdable ? await resolveHeldCall(exec, held, inputs) : null;
      if (!again) {
        const failed = failedDirectToolCallInput({ ...first, session: session() }, failure);
        return turn.run('DirectToolCall', failed, `${summary}: failed`);
      }
      next = again;
    }
  }
}

/** A plain step input (no tool call, no carried rows) for the activity that audits a direct call's hold. */
function heldStepInput(call: DirectToolCallInput, session: Session, callKey: string): StepInput {
  return { turn: call.turn, session, callKey };
}
