import { runMcpStep } from '../mcp/loop';
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

function callKey(index: number, name: string): string {
  return `${String(index).padStart(2, '0')}-${name}`;
}

interface Progress {
  session: Session;
  stop: StopResult | null;
  index: number;
}

async function runSteps(
  names: readonly PipelineStepName[],
  turn: TurnInput,
  progress: Progress,
  exec: TurnExecutor,
  stopOnStop: boolean
): Promise<void> {
  for (const [i, name] of names.entries()) {
    if (stopOnStop && progress.stop) return;
    progress.index += 1;
    const input: StepInput = {
      turn,
      session: progress.session,
      callKey: callKey(progress.index, name),
    };
    const next = names
      .slice(i + 1)
      .map((later, k) => ({ name: later, callKey: callKey(progress.index + 1 + k, later) }));
    const out = await exec.step(name, input, next);
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
  await runSteps(PIPELINE_STEPS_BEFORE_MCP, turn, progress, exec, true);
  if (!progress.stop) {
    progress.index += 1;
    const base: StepInput = {
      turn,
      session: progress.session,
      callKey: callKey(progress.index, 'McpTool'),
    };
    const mcp = await runMcpStep(base, exec);
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
