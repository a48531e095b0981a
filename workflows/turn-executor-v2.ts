import {
  ApplicationFailure,
  type TemporalFailure,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertMemo,
} from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type {
  DirectToolCallInput,
  DirectToolCallRequest,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  McpToolDescriptor,
  PipelineStepName,
  StepInput,
  StepOutput,
  StepReply,
  TurnDecisionRecord,
  TurnInput,
} from '../core/turn/contracts';
import {
  directToolCallInput,
  failedDirectToolCallInput,
  ToolCallFailure,
  type ApprovalRequest,
  type AwaitedApproval,
  type HeldToolRequest,
  type HeldToolResolution,
  type TurnExecutor,
} from '../core/turn/executor';
import {
  heldAuditInput,
  operatorFailedMessage,
  resolvedAuditInput,
  resolveHeldCall,
  TOOL_HOLD_FAILED,
} from '../core/mcp/hold';
import { approvalRequestedInput } from '../core/mcp/outcomes';
import { StepCalls } from '../core/turn/protocol';
import { isStepResult } from '../core/turn/step-result';
import { STEP_TABLE, type StepName, type StepSpec } from '../core/turn/steps';
import type { Session } from '../core/session';
import { workflowNow } from './clock';
import { activityOptionsFor, localActivityOptionsFor, optionsForTool } from './activity-options';
import type { TurnState } from './turn-state';
import { awaitHeldTool } from './tool-hold';
import { awaitApproval, describeDecision, heldStepInput, toToolFailure } from './turn-units';
import { runStepsActivity } from './step-runs';
import type { TurnVersions } from './turn-versions';
import { recordTurnFailure } from './turn-failure';
import { StepRunner } from '../core/turn/step-runner';
import { escalationReason, runsLocally } from './step-kinds';
import { handOverSummary, type PlannedStep, type RunAnswer, type RunStepName } from '../core/turn/step-runs';

type StepActivities = Omit<TurnActivities, 'RecordTurnDecision'>;
type Call<I extends StepInput, O extends StepOutput> = {
  executeWithOptions(options: object, args: [I]): Promise<StepReply<O>>;
};

// Defaults only: every call passes the step table's own options (executeWithOptions).
const regular = proxyActivities<StepActivities>(activityOptionsFor(STEP_TABLE.PersistConversation));
const local = proxyLocalActivities<StepActivities>(localActivityOptionsFor(STEP_TABLE.AuditUserInput));

/**
 * A step's progress message (ce_verbose) becomes the turn's current details, which the Temporal UI
 * shows for a running workflow (`__temporal_workflow_metadata`). Details are not history, so
 * histories recorded before progress messages existed replay unchanged.
 */
function showProgress(reply: StepReply<StepOutput>): void {
  const progress = isStepResult(reply) ? reply.summary.progress : undefined;
  if (progress) setCurrentDetails(progress);
}

/**
 * conversationTurnV2: runs the driver's units as activities that receive the session and return
 * only a patch (StepResult), applied here in order; each step writes its own audit rows. The kind
 * of each activity (local or regular) and its retry policy come from the step table.
 */
export class WorkflowTurnExecutorV2 implements TurnExecutor {
  private readonly calls = new StepCalls();
  private readonly runs = new StepRunner({
    runsIn: () => this.versions.stepRunsIn(),
    runsLocally: (name) => runsLocally(STEP_TABLE[name], this.versions),
    runSteps: runStepsActivity,
    attemptLocally: (name, call, summary) => this.localAttempt(STEP_TABLE[name], call, summary),
    runRegularly: (name, call, summary) => this.regular(STEP_TABLE[name], call, summary),
  });
  private session: Session | null = null;

  constructor(
    private readonly state: TurnState,
    private readonly versions: TurnVersions
  ) {}

  private async run<I extends StepInput, O extends StepOutput>(
    name: StepName,
    input: I,
    summary: string,
    options?: object
  ): Promise<O> {
    const spec = STEP_TABLE[name];
    const call = this.calls.input(input);
    if (!runsLocally(spec, this.versions))
      return this.answer(name, input, await this.regular<I, O>(spec, call, summary, options));
    const local = await this.localAttempt<I, O>(spec, call, summary);
    if ('reply' in local) return this.answer(name, input, local.reply);
    return this.answer(
      name,
      input,
      await this.regular<I, O>(spec, call, handOverSummary(summary, name, local.handOver))
    );
  }

  /** The step's reply applied to the session the driver sent; its progress message shown. */
  private answer<I extends StepInput, O extends StepOutput>(name: StepName, input: I, reply: StepReply<O>): O {
    showProgress(reply);
    const out = this.calls.output(name, input, reply);
    this.session = out.session;
    return out;
  }

  /**
   * A local activity; when it reached the LLM or consumer code it wrote nothing, and the caller runs
   * the same call (same key, same carried decisions) as a regular activity: `handOver` says why.
   */
  private async localAttempt<I extends StepInput, O extends StepOutput>(
    spec: StepSpec,
    call: I,
    summary: string
  ): Promise<{ reply: StepReply<O> } | { handOver: string }> {
    const proxy = local as unknown as Record<string, Call<I, O>>;
    const options = { ...localActivityOptionsFor(spec), summary };
    try {
      return { reply: await (proxy[spec.name] as Call<I, O>).executeWithOptions(options, [call]) };
    } catch (err) {
      const reason = escalationReason(err);
      if (reason === null) throw err;
      return { handOver: reason };
    }
  }

  private regular<I extends StepInput, O extends StepOutput>(
    spec: StepSpec,
    call: I,
    summary: string,
    options?: object
  ): Promise<StepReply<O>> {
    const proxy = regular as unknown as Record<string, Call<I, O>>;
    const defaults = activityOptionsFor(spec);
    return (proxy[spec.name] as Call<I, O>).executeWithOptions({ ...defaults, ...options, summary }, [call]);
  }

  /** A step a run already ran is answered at once, without a promise (TurnExecutor.step says why). */
  step(name: PipelineStepName, input: StepInput, next: readonly PlannedStep[]): StepOutput | Promise<StepOutput> {
    const answer = this.runs.take({ name, callKey: input.callKey });
    if (answer?.kind !== 'ran') return this.stepRun(name, input, next, answer);
    const out = this.answer<StepInput, StepOutput>(name, input, answer.result);
    return out.directToolCall ? this.directToolCall(input, out, out.directToolCall) : out;
  }

  private async stepRun(
    name: PipelineStepName,
    input: StepInput,
    next: readonly PlannedStep[],
    answer: RunAnswer | null
  ): Promise<StepOutput> {
    const out = await this.runStep(name, input, next, name, answer);
    return out.directToolCall ? this.directToolCall(input, out, out.directToolCall) : out;
  }

  /** A step a step run may cover, run as the step runner decides (core/turn/step-runner.ts). */
  private async runStep<O extends StepOutput>(
    name: RunStepName,
    input: StepInput,
    next: readonly PlannedStep[],
    summary: string,
    taken: RunAnswer | null
  ): Promise<O> {
    const step = { name, callKey: input.callKey };
    const reply = await this.runs.run(step, (steps) => this.calls.input(input, steps), next, summary, taken);
    return this.answer<StepInput, O>(name, input, reply as StepReply<O>);
  }

  /**
   * A request's direct tool (D21): its own activity, retried by the tool's policy, not the step's.
   * Out of retries, it holds for an operator like a planner call (#22) and runs again as
   * resolveHeldCall says; a failure that stands is recorded as the tool's result.
   */
  private async directToolCall(input: StepInput, out: StepOutput, request: DirectToolCallRequest): Promise<StepOutput> {
    this.state.toolCalls += 1;
    const { tool } = request;
    const options = optionsForTool(tool);
    const maxAttempts = options.retry?.maximumAttempts ?? 1;
    const holdable = this.versions.directToolHold();
    const first = directToolCallInput(input, out, request, maxAttempts, holdable && tool.onRetriesExhausted === 'HOLD');
    const summary = `DirectToolCall: ${tool.toolCode} (${tool.sideEffect})`;
    const session = () => this.session ?? first.session;
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
        return await this.run('DirectToolCall', next, summary, options);
      } catch (err) {
        const failure = toToolFailure(err, maxAttempts);
        if (!(failure instanceof ToolCallFailure)) throw failure;
        const held = { call: first.call, tool, failure, hold };
        const again = holdable ? await resolveHeldCall(this, held, inputs) : null;
        if (!again) {
          const failed = failedDirectToolCallInput({ ...first, session: session() }, failure);
          return this.run('DirectToolCall', failed, `${summary}: failed`);
        }
        next = again;
      }
    }
  }

  mcpPrepare(input: StepInput, next: readonly PlannedStep[]): Promise<McpPrepareOutput> {
    const summary = 'McpPrepare: PRE_AGENT_MCP rules, skip checks, clear stale MCP context';
    const answer = this.runs.take({ name: 'McpPrepare', callKey: input.callKey });
    return this.runStep('McpPrepare', input, next, summary, answer);
  }

  mcpPlan(input: McpPlanInput): Promise<McpPlanOutput> {
    this.state.plannerIterations += 1;
    return this.run('McpPlan', input, `McpPlan: planner iteration ${input.iteration}`);
  }

  async mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput> {
    this.state.toolCalls += 1;
    const options = optionsForTool(tool);
    const summary = `McpToolCall: ${tool.toolCode} (call ${input.call.callIndex}, ${tool.sideEffect})`;
    try {
      return await this.run('McpToolCall', input, summary, options);
    } catch (err) {
      throw toToolFailure(err, options.retry?.maximumAttempts ?? 1);
    }
  }

  mcpFinalize(input: StepInput, next: readonly PlannedStep[]): Promise<StepOutput> {
    const answer = this.runs.take({ name: 'McpFinalize', callKey: input.callKey });
    return this.runStep('McpFinalize', input, next, 'McpFinalize: loop flags, POST_AGENT_MCP rules', answer);
  }

  /**
   * No activity round trip: the decision rides on the next step input, which writes the
   * TURN_DECISION row. History shows it at once as a memo upsert (`decisionLog`), which the
   * Temporal UI displays, so an operator sees why the turn ended as it did.
   */
  async record(decision: TurnDecisionRecord): Promise<void> {
    this.state.decisions += 1;
    this.state.decisionLog.push(describeDecision(decision));
    upsertMemo({ decisionLog: this.state.decisionLog });
    this.calls.record(decision);
  }

  /**
   * #22: audits the hold (TOOL_HELD), waits for the operator or the hold timeout, audits their
   * decision (TOOL_HOLD_RESOLVED). `fail` ends the turn here with a non-retryable failure.
   */
  async holdToolCall(
    request: HeldToolRequest,
    inputFor: (suffix: string) => StepInput
  ): Promise<HeldToolResolution | null> {
    if (!this.versions.toolHold()) return null;
    const expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString();
    const at = `McpToolHold: ${request.toolCode} (call ${request.callIndex})`;
    await this.run('McpToolHold', heldAuditInput(inputFor, request, expiresAt), `${at} held`);
    const resolution = await awaitHeldTool(this.state, this.session, request, expiresAt, () =>
      this.versions.parkPosition()
    );
    const resolved = resolvedAuditInput(inputFor, request, resolution);
    await this.run('McpToolHold', resolved, `${at} ${resolution.action}`);
    if (resolution.action === 'fail') {
      throw ApplicationFailure.create({
        type: TOOL_HOLD_FAILED,
        message: operatorFailedMessage(request.toolCode, resolution.reason),
        nonRetryable: true,
      });
    }
    return resolution;
  }

  /**
   * D16: audits the request (MCP_TOOL_APPROVAL_REQUESTED) as the turn parks, as a hold audits TOOL_HELD, so the
   * stream and GET /conversation/{id} show the pending call; then waits. Turns from before the patch audit it with
   * the decision (the driver does, as requestAudited is unset).
   */
  async awaitApproval(request: ApprovalRequest, inputFor?: (suffix: string) => StepInput): Promise<AwaitedApproval> {
    if (!inputFor || !this.versions.approvalRequestRow()) {
      return awaitApproval(this.state, this.session, request, this.versions);
    }
    const expiresAt = new Date(workflowNow() + request.timeoutMs).toISOString();
    const summary = `McpToolHold: ${request.toolCode} (call ${request.callIndex}) approval requested`;
    await this.run('McpToolHold', approvalRequestedInput(inputFor, request, expiresAt), summary);
    const decision = await awaitApproval(this.state, this.session, request, this.versions, expiresAt);
    return { ...decision, requestAudited: true };
  }

  /**
   * The turn's failure row, from the session as the last step answered it (turn-failure.ts), and that session
   * for the turn's Intent, State and ConfigVersion search attributes. Turns from before the patch record neither.
   */
  async recordFailure(turn: TurnInput, err: TemporalFailure): Promise<Session | null> {
    if (!this.versions.failureRow()) return null;
    await recordTurnFailure(turn, this.session, err);
    return this.session;
  }
}
