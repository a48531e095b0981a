import { randomUUID } from 'node:crypto';
import type { JsonObject } from '../../core/json';
import type { RequestContext } from '../../core/session';
import type { TurnActivities } from '../../core/turn/activities';
import {
  turnIdFor,
  type DirectToolCallInput,
  type DirectToolCallRequest,
  type McpPrepareOutput,
  type McpToolDescriptor,
  type StepInput,
  type StepOutput,
  type StepReply,
  type TurnInput,
  type TurnResult,
} from '../../core/turn/contracts';
import { StepCalls } from '../../core/turn/protocol';
import { toolRetry } from '../../core/turn/steps';
import { runTurn } from '../../core/turn/driver';
import {
  directToolCallInput,
  failedDirectToolCallInput,
  ToolCallFailure,
  type HeldToolRequest,
  type HeldToolResolution,
  type TurnExecutor,
} from '../../core/turn/executor';
import { committedTurnCount } from '../../db/repositories/conversation';
import { systemClock, type ActivityDeps, type Clock } from '../deps';
import { EngineError } from '../../core/errors';
import {
  heldAuditInput,
  operatorFailedMessage,
  resolvedAuditInput,
  resolveHeldCall,
  TOOL_HOLD_FAILED,
} from '../../core/mcp/hold';
import { createActivities } from '..';
import { activityRuns, withRetries, type ActivityRetryOptions, type ActivityRuns } from './activity-runs';
import { inProcessStepRuns } from './step-runs';
import { StepRunner } from '../../core/turn/step-runner';
import type { PlannedStep, RunStepName } from '../../core/turn/step-runs';

/** Activities the in-process runner calls: exactly what the worker registers. */
export type InProcessActivities = TurnActivities;

export interface InProcessOptions extends ActivityRetryOptions {
  /** Human-in-the-loop decisions for tools that need approval; default: reject. */
  approve?: TurnExecutor['awaitApproval'];
  /**
   * Decides at once a tool call held for an operator (#22: what-if answers with the recorded decision); the
   * hold and the decision are audited as the workflow audits them. Default: no operator, a HOLD tool is never
   * held and its failure stands; so it is when this answers null.
   */
  decideHeldTool?: (request: HeldToolRequest) => Promise<HeldToolResolution | null>;
}

/**
 * A direct call, held for an operator like a planner call (#22) when `holder` can hold (the workflow's
 * directToolCall, in process): run again as resolveHeldCall says; a failure that stands is recorded as its result.
 */
async function directCall(
  first: DirectToolCallInput,
  tool: McpToolDescriptor,
  run: {
    attempt(call: DirectToolCallInput): Promise<StepOutput>;
    recordFailure(call: DirectToolCallInput): Promise<StepOutput>;
    holder: Pick<TurnExecutor, 'holdToolCall' | 'record'> | null;
  }
): Promise<StepOutput> {
  const inputs = {
    audit: (suffix: string): StepInput => ({
      turn: first.turn,
      session: first.session,
      callKey: first.callKey + suffix,
    }),
    call: (suffix: string): DirectToolCallInput => ({ ...first, callKey: first.callKey + suffix }),
  };
  let next = first;
  for (let hold = 1; ; hold++) {
    try {
      return await run.attempt(next);
    } catch (err) {
      if (!(err instanceof ToolCallFailure)) throw err;
      const held = { call: first.call, tool, failure: err, hold };
      const again = run.holder ? await resolveHeldCall(run.holder, held, inputs) : null;
      if (!again) return run.recordFailure(failedDirectToolCallInput(first, err));
      next = again;
    }
  }
}

/**
 * #22 in process: a held call is decided at once by `decide`, and the hold and the decision are audited as the
 * workflow audits them (McpToolHold); `fail` ends the turn, null leaves the failure standing.
 */
function decidedHold(
  decide: NonNullable<InProcessOptions['decideHeldTool']>,
  runHold: (input: StepInput) => Promise<StepOutput>,
  clock: Clock
): NonNullable<TurnExecutor['holdToolCall']> {
  return async (request, inputFor) => {
    const resolution = await decide(request);
    if (!resolution) return null;
    const expiresAt = new Date(clock.now().getTime() + request.timeoutMs).toISOString();
    await runHold(heldAuditInput(inputFor, request, expiresAt));
    await runHold(resolvedAuditInput(inputFor, request, resolution));
    if (resolution.action === 'fail') {
      const message = operatorFailedMessage(request.toolCode, resolution.reason);
      throw new EngineError(TOOL_HOLD_FAILED, message, { retryable: false });
    }
    return resolution;
  };
}

type StepRun = <O extends StepOutput>(name: RunStepName, input: StepInput, next: readonly PlannedStep[]) => Promise<O>;

/** A step a step run may cover, run as the step runner decides, exactly as the workflow runs it. */
function stepRun(
  activities: InProcessActivities,
  calls: StepCalls,
  options: InProcessOptions,
  runs: ActivityRuns
): StepRun {
  const runner = new StepRunner(
    inProcessStepRuns({
      activities,
      retried: (type, call, policy = type) => withRetries(type, runs.attemptsOf(policy), options, call),
    })
  );
  return async <O extends StepOutput>(name: RunStepName, input: StepInput, next: readonly PlannedStep[]) => {
    const step = { name, callKey: input.callKey };
    const reply = await runner.run(step, (steps) => calls.input(input, steps), next, name, runner.take(step));
    return calls.output(name, input, reply as StepReply<O>);
  };
}

/**
 * A TurnExecutor that calls the activity functions directly, in this process: the test harness
 * and the benchmark baseline for the Temporal workflow (conversationTurnV2), which runs the very
 * same functions with the same inputs (core/turn/protocol.ts) and the same retry counts
 * (core/turn/steps.ts).
 */
export function createInProcessExecutor(
  activities: InProcessActivities,
  options: InProcessOptions = {},
  clock: Clock = systemClock
): TurnExecutor {
  const calls = new StepCalls();
  const runs = activityRuns(calls, options);
  const { run, runTool } = runs;
  const runStep = stepRun(activities, calls, options, runs);
  const toolAttempts = (tool: McpToolDescriptor) =>
    Math.min(toolRetry(tool).maximumAttempts, options.maxAttempts ?? Number.POSITIVE_INFINITY);
  /** A request's direct tool (D21), retried by the tool's policy; a final failure is recorded as its result. */
  const direct = async (input: StepInput, out: StepOutput): Promise<StepOutput> => {
    const request = out.directToolCall as DirectToolCallRequest;
    const maxAttempts = toolAttempts(request.tool);
    const holds = options.decideHeldTool !== undefined && request.tool.onRetriesExhausted === 'HOLD';
    const first = directToolCallInput(input, out, request, maxAttempts, holds);
    return directCall(first, request.tool, {
      attempt: (call) => runTool('DirectToolCall', call, activities.DirectToolCall, maxAttempts),
      recordFailure: (call) => run('DirectToolCall', call, activities.DirectToolCall),
      holder: holds ? executor : null,
    });
  };
  const executor: TurnExecutor = {
    step: async (name, input, next) => {
      const out = await runStep(name, input, next);
      return out.directToolCall ? direct(input, out) : out;
    },
    mcpPrepare: (input, next) => runStep<McpPrepareOutput>('McpPrepare', input, next),
    mcpPlan: (input) => run('McpPlan', input, activities.McpPlan),
    mcpFinalize: (input, next) => runStep('McpFinalize', input, next),
    mcpToolCall: (input, tool) => runTool('McpToolCall', input, activities.McpToolCall, toolAttempts(tool)),
    awaitApproval:
      options.approve ?? (async () => ({ decision: 'REJECTED', reason: 'no approver in process', decidedBy: null })),
    async record(decision) {
      calls.record(decision);
    },
  };
  if (options.decideHeldTool) {
    const runHold = (input: StepInput) => run('McpToolHold', input, activities.McpToolHold);
    executor.holdToolCall = decidedHold(options.decideHeldTool, runHold, clock);
  }
  return executor;
}

export interface TurnRequest {
  conversationId?: string;
  message: string;
  inputParams?: JsonObject;
  reset?: boolean;
  requestContext?: RequestContext;
  idempotencyKey?: string | null;
}

/** Builds the turn input from the committed turn count, as the gateway does before starting a workflow. */
export async function turnInputFor(deps: ActivityDeps, request: TurnRequest): Promise<TurnInput> {
  const conversationId = request.conversationId ?? randomUUID();
  const turnNumber = (await committedTurnCount(deps.db, conversationId)) + 1;
  return {
    conversationId,
    turnNumber,
    turnId: turnIdFor(conversationId, turnNumber),
    message: request.message,
    inputParams: request.inputParams ?? {},
    reset: request.reset ?? false,
    requestContext: request.requestContext ?? {},
    idempotencyKey: request.idempotencyKey ?? null,
    receivedAt: deps.clock.now().toISOString(),
  };
}

export interface InProcessRunOptions extends InProcessOptions {
  /** Activities to call; default createActivities(deps). */
  activities?: InProcessActivities;
}

/** Runs one whole turn in this process through core/turn/driver.ts — the same units the workflow runs. */
export async function runTurnInProcess(
  deps: ActivityDeps,
  request: TurnRequest,
  options: InProcessRunOptions = {}
): Promise<TurnResult> {
  const turn = await turnInputFor(deps, request);
  return runTurn(turn, createInProcessExecutor(options.activities ?? createActivities(deps), options, deps.clock));
}
