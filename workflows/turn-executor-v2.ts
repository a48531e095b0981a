import {
  CancellationScope,
  type TemporalFailure,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  upsertMemo,
} from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type {
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
import type {
  ApprovalRequest,
  AwaitedApproval,
  HeldToolRequest,
  HeldToolResolution,
  TurnExecutor,
} from '../core/turn/executor';
import { StepCalls } from '../core/turn/protocol';
import { isStepResult } from '../core/turn/step-result';
import { STEP_TABLE, type StepName, type StepSpec } from '../core/turn/steps';
import type { Session } from '../core/session';
import { activityOptionsFor, localActivityOptionsFor, optionsForTool } from './activity-options';
import { directToolCall } from './direct-tool-call';
import type { RunningTurn } from './running-turn';
import type { TurnState } from './turn-state';
import { awaitAuditedApproval } from './tool-approval';
import { holdToolCall } from './tool-hold';
import { describeDecision, toToolFailure } from './turn-units';
import { runStepsActivity } from './step-runs';
import { checkedStepReply } from './step-replies';
import type { TurnVersions } from './turn-versions';
import type { CancelledTurn } from './search-attributes';
import { recordTurnCancellation, recordTurnFailure } from './turn-failure';
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
  /** The step the turn last sent to an activity: where a cancellation found it (recordCancellation). */
  private lastSent: StepName | null = null;
  /** This turn as the approval, hold and direct tool paths run it. */
  private readonly turn: RunningTurn;

  constructor(
    private readonly state: TurnState,
    private readonly versions: TurnVersions
  ) {
    this.turn = {
      state,
      versions,
      session: () => this.session,
      run: (name, input, summary, options) => this.run(name, input, summary, options),
    };
  }

  private async run<I extends StepInput, O extends StepOutput>(
    name: StepName,
    input: I,
    summary: string,
    options?: object
  ): Promise<O> {
    const spec = STEP_TABLE[name];
    this.lastSent = name;
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

  /** The step's reply, checked (step-replies.ts), applied to the session the driver sent; its progress message shown. */
  private answer<I extends StepInput, O extends StepOutput>(name: StepName, input: I, reply: StepReply<O>): O {
    const checked = checkedStepReply(name, input.callKey, reply);
    showProgress(checked);
    const out = this.calls.output(name, input, checked);
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
    return out.directToolCall ? directToolCall(this.turn, this, input, out, out.directToolCall) : out;
  }

  private async stepRun(
    name: PipelineStepName,
    input: StepInput,
    next: readonly PlannedStep[],
    answer: RunAnswer | null
  ): Promise<StepOutput> {
    const out = await this.runStep(name, input, next, name, answer);
    return out.directToolCall ? directToolCall(this.turn, this, input, out, out.directToolCall) : out;
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
    this.lastSent = name;
    const reply = await this.runs.run(step, (steps) => this.calls.input(input, steps), next, summary, taken);
    return this.answer<StepInput, O>(name, input, reply as StepReply<O>);
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
      throw toToolFailure(err, options.retry?.maximumAttempts ?? 1, this.versions);
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

  /** #22: the operator hold of a failed call (tool-hold.ts). */
  holdToolCall(request: HeldToolRequest, inputFor: (suffix: string) => StepInput): Promise<HeldToolResolution | null> {
    return holdToolCall(this.turn, request, inputFor);
  }

  /** Asked of the history: a turn recorded before the refusal sent the repeated direct call (turn-versions.ts). */
  refusesFailedDirectRepeat(): boolean {
    return this.versions.failedDirectRepeatRefused();
  }

  /** Asked of the history: a turn recorded before it took a write cut by a stopping worker for the tool's failure. */
  holdsShutdownCutWrite(): boolean {
    return this.versions.shutdownCutWriteHeld();
  }

  /** D16: the approval of a call, its request audited as the turn parks (tool-approval.ts). */
  awaitApproval(request: ApprovalRequest, inputFor?: (suffix: string) => StepInput): Promise<AwaitedApproval> {
    return awaitAuditedApproval(this.turn, request, inputFor);
  }

  /**
   * The turn's failure row, from the session as the last step answered it (turn-failure.ts), and that session
   * for the turn's Intent, State and ConfigVersion search attributes. Turns from before the patch record neither.
   */
  async recordFailure(turn: TurnInput, err: TemporalFailure): Promise<Session | null> {
    if (!this.versions.failureRow()) return null;
    await recordTurnFailure(turn, this.session, err, this.versions);
    return this.session;
  }

  /**
   * A cancelled turn's TURN_CANCELLED row, out of the cancellation's reach (turns from before its patch write none),
   * then whether it records TurnOutcome CANCELLED, with the session it stood at (null: from before that patch).
   */
  async recordCancellation(turn: TurnInput, err: unknown): Promise<CancelledTurn | null> {
    if (this.versions.cancelledRow()) {
      const at = this.lastSent ?? 'Turn';
      await CancellationScope.nonCancellable(() => recordTurnCancellation(turn, this.session, err, at, this.versions));
    }
    return this.versions.cancelledOutcome() ? { position: this.session } : null;
  }
}
