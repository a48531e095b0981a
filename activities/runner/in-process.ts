import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { JsonObject } from '../../core/json';
import type { RequestContext } from '../../core/session';
import type { TurnActivities } from '../../core/turn/activities';
import {
  turnIdFor,
  type DirectToolCallRequest,
  type McpToolDescriptor,
  type StepInput,
  type StepOutput,
  type TurnInput,
  type TurnResult,
} from '../../core/turn/contracts';
import { runTurn } from '../../core/turn/driver';
import {
  directToolCallInput,
  failedDirectToolCallInput,
  ToolCallFailure,
  type TurnExecutor,
} from '../../core/turn/executor';
import { committedTurnCount } from '../../db/repositories/conversation';
import type { ActivityDeps } from '../deps';
import { createActivities } from '..';
import { runAsAttempt } from '../runtime/attempt';
import { isRetryableFailure } from '../runtime/failure';

/** Activities the in-process runner calls: exactly what the worker registers. */
export type InProcessActivities = TurnActivities;

export interface InProcessOptions {
  /** Attempts per activity for retryable failures (Temporal's retry policy, without the sleeps). */
  maxAttempts?: number;
  /** Human-in-the-loop decisions for tools that need approval; default: reject. */
  approve?: TurnExecutor['awaitApproval'];
  /** Wraps every activity call (tests inject failures or lost results here). */
  around?: <T>(activity: string, attempt: number, call: () => Promise<T>) => Promise<T>;
}

const DEFAULT_ATTEMPTS = 3;

async function withRetries<T>(
  name: string,
  maxAttempts: number,
  options: InProcessOptions,
  call: () => Promise<T>
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const run = () => runAsAttempt(attempt, call);
      return await (options.around ? options.around(name, attempt, run) : run());
    } catch (err) {
      if (attempt >= maxAttempts || !isRetryableFailure(err)) throw err;
    }
  }
}

function failureOf(err: unknown, attempts: number): ToolCallFailure {
  const type =
    err instanceof ApplicationFailure ? (err.type ?? 'ToolFailure') : err instanceof Error ? err.name : 'Error';
  const message = err instanceof Error ? err.message : String(err);
  const root =
    err instanceof Error && err.cause instanceof Error
      ? { className: err.cause.name, message: err.cause.message }
      : null;
  return new ToolCallFailure(type, message, attempts, root);
}

/**
 * A TurnExecutor that calls the activity functions directly, in this process: the test harness
 * and the benchmark baseline for the Temporal workflow, which runs the very same functions.
 */
export function createInProcessExecutor(activities: InProcessActivities, options: InProcessOptions = {}): TurnExecutor {
  const attempts = options.maxAttempts ?? DEFAULT_ATTEMPTS;
  // The latest state seen, so driver decisions are recorded with the turn and session they belong to.
  let last: { turn: StepInput['turn']; session: StepInput['session'] } | null = null;
  let decisions = 0;
  const retry = async <T extends StepOutput>(
    name: string,
    input: StepInput,
    call: () => Promise<T>,
    max = attempts
  ) => {
    const out = await withRetries(name, max, options, call);
    last = { turn: input.turn, session: out.session };
    return out;
  };
  const toolAttempts = (tool: McpToolDescriptor) =>
    tool.sideEffect === 'NON_IDEMPOTENT_WRITE'
      ? 1
      : Math.max(1, Math.min(tool.retry.maxAttempts ?? attempts, attempts));
  /** A request's direct tool (D21), retried by the tool's policy; a final failure is recorded as its result. */
  const direct = async (input: StepInput, out: StepOutput): Promise<StepOutput> => {
    const request = out.directToolCall as DirectToolCallRequest;
    const { tool } = request;
    const maxAttempts = toolAttempts(tool);
    const next = directToolCallInput(input, out, request, maxAttempts);
    try {
      return await retry('DirectToolCall', input, () => activities.DirectToolCall(next), maxAttempts);
    } catch (err) {
      const failure = failureOf(err, maxAttempts);
      const recorded = failedDirectToolCallInput(next, failure);
      return retry('DirectToolCall', input, () => activities.DirectToolCall(recorded));
    }
  };
  return {
    step: async (name, input) => {
      const out = await retry(name, input, () => activities[name](input));
      return out.directToolCall ? direct(input, out) : out;
    },
    mcpPrepare: (input) => retry('McpPrepare', input, () => activities.McpPrepare(input)),
    mcpPlan: (input) => retry('McpPlan', input, () => activities.McpPlan(input)),
    mcpFinalize: (input) => retry('McpFinalize', input, () => activities.McpFinalize(input)),
    async mcpToolCall(input, tool) {
      const max = toolAttempts(tool);
      let made = 0;
      const call = () => {
        made += 1;
        return activities.McpToolCall(input);
      };
      try {
        return await retry('McpToolCall', input, call, max);
      } catch (err) {
        throw failureOf(err, made);
      }
    },
    awaitApproval:
      options.approve ?? (async () => ({ decision: 'REJECTED', reason: 'no approver in process', decidedBy: null })),
    async record(decision) {
      if (!last) return;
      decisions += 1;
      const input = { ...last, callKey: `decision-${decisions}`, decision, audits: [] };
      await withRetries('RecordTurnDecision', attempts, options, () => activities.RecordTurnDecision(input));
    },
  };
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
  return runTurn(turn, createInProcessExecutor(options.activities ?? createActivities(deps), options));
}
