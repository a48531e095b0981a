import { mcpPrepareStep, runMcpStep } from '../mcp/loop';
import type { Payload, Session } from '../session';
import {
  COMMIT_STEPS,
  PIPELINE_STEPS_AFTER_MCP,
  PIPELINE_STEPS_BEFORE_MCP,
  type PipelineStepName,
  type StepInput,
  type StopResult,
  type TurnInput,
  type TurnResult,
} from './contracts';
import type { TurnExecutor } from './executor';
import { blankSession } from './session-factory';
import { turnOutcomeOf } from './outcome';
import type { PlannedStep } from './step-runs';

function callKey(index: number, name: string): string {
  return `${String(index).padStart(2, '0')}-${name}`;
}

interface Progress {
  session: Session;
  stop: StopResult | null;
  index: number;
}

/** `names` as the driver will ask for them, numbered on from `index`. */
function planned(names: readonly PipelineStepName[], index: number): (PlannedStep & { name: PipelineStepName })[] {
  return names.map((name, k) => ({ name, callKey: callKey(index + 1 + k, name) }));
}

/**
 * Runs `names` in order. `then`: what the driver may ask for right after them (after the steps
 * before the MCP step: McpPrepare, then the steps after the MCP step when MCP skips its loop), so a
 * step run may take them in too (core/turn/step-runs.ts).
 */
async function runSteps(
  names: readonly PipelineStepName[],
  turn: TurnInput,
  progress: Progress,
  exec: TurnExecutor,
  stopOnStop: boolean,
  then: readonly PlannedStep[] = []
): Promise<void> {
  const steps = planned(names, progress.index);
  for (const [i, step] of steps.entries()) {
    if (stopOnStop && progress.stop) return;
    progress.index += 1;
    const input: StepInput = { turn, session: progress.session, callKey: step.callKey };
    const reply = exec.step(step.name, input, [...steps.slice(i + 1), ...then]);
    // No await for an answer at hand: awaiting a value creates a promise (TurnExecutor.step says why it matters).
    const out = reply instanceof Promise ? await reply : reply;
    progress.session = out.session;
    if (out.stop && !progress.stop) progress.stop = out.stop;
  }
}

/**
 * One conversation turn: the pipeline steps in order, the MCP step unrolled into planner and
 * tool units, then the commit steps. A stop (policy block, SHORT_CIRCUIT) skips to the commit
 * steps, so a stopped turn is still committed whole. Deterministic: all I/O goes through `exec`.
 */
export async function runTurn(turn: TurnInput, exec: TurnExecutor): Promise<TurnResult> {
  const progress: Progress = { session: blankSession(turn), stop: null, index: 0 };
  const mcpIndex = PIPELINE_STEPS_BEFORE_MCP.length + 1;
  const mcpKey = callKey(mcpIndex, 'McpTool');
  const afterMcp = planned(PIPELINE_STEPS_AFTER_MCP, mcpIndex);
  await runSteps(PIPELINE_STEPS_BEFORE_MCP, turn, progress, exec, true, [mcpPrepareStep(mcpKey), ...afterMcp]);
  if (!progress.stop) {
    progress.index += 1;
    const base: StepInput = { turn, session: progress.session, callKey: mcpKey };
    const mcp = await runMcpStep(base, exec, afterMcp);
    progress.session = mcp.session;
    if (mcp.stop) progress.stop = mcp.stop;
  }
  await runSteps(PIPELINE_STEPS_AFTER_MCP, turn, progress, exec, true);
  await runSteps(COMMIT_STEPS, turn, progress, exec, false);
  return resultOf(turn, progress);
}

function resultOf(turn: TurnInput, progress: Progress): TurnResult {
  const { session, stop } = progress;
  const payload: Payload = stop?.payload ?? session.payload ?? { type: 'TEXT', value: '' };
  return {
    success: true,
    conversationId: session.conversationId,
    turnNumber: turn.turnNumber,
    turnId: turn.turnId,
    intent: session.intent,
    state: session.state,
    payload,
    context: session.context,
    outcome: turnOutcomeOf(session, stop),
    configVersion: session.configVersion,
  };
}
