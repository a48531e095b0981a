import { proxyActivities } from '@temporalio/workflow';
import type { TurnActivities } from '../core/turn/activities';
import type {
  ApprovalDecision,
  DirectToolCallRequest,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  McpToolDescriptor,
  PipelineStepName,
  StepInput,
  StepOutput,
  TurnInput,
} from '../core/turn/contracts';
import {
  directToolCallInput,
  failedDirectToolCallInput,
  ToolCallFailure,
  type ApprovalRequest,
  type TurnDecisionRecord,
  type TurnExecutor,
} from '../core/turn/executor';
import type { Session } from '../core/session';
import { decisionActivity, llmActivity, optionsForStep, optionsForTool, stepActivity } from './activity-options';
import type { TurnState } from './turn-state';
import { PATCHED_VERSIONS } from './turn-versions';
import { awaitApproval } from './tool-approval';
import { describeDecision, toToolFailure } from './turn-units';
import { checkedStepOutput } from './step-replies';

const acts = proxyActivities<TurnActivities>(stepActivity);

/**
 * conversationTurn (v1): runs the driver's units as activities that carry the whole session in and
 * out. Kept unchanged so histories recorded before conversationTurnV2 still replay.
 */
export class WorkflowTurnExecutor implements TurnExecutor {
  private session: Session | null = null;

  constructor(
    private readonly turn: TurnInput,
    private readonly state: TurnState
  ) {}

  /** Unchanged since it shipped: a failed v1 turn has only the rows its steps wrote, and no position. */
  async recordFailure(): Promise<null> {
    return null;
  }

  /** conversationTurn never writes a cancelled turn's row nor its outcome: its histories end at the cancellation. */
  async recordCancellation(): Promise<null> {
    return null;
  }

  /** conversationTurn sends a planner call again after the direct call its tool failed, as it always did. */
  refusesFailedDirectRepeat(): boolean {
    return false;
  }

  private seen<T extends StepOutput>(out: T): T {
    this.session = out.session;
    return out;
  }

  async step(name: PipelineStepName, input: StepInput): Promise<StepOutput> {
    const activity = acts[name];
    const reply = await activity.executeWithOptions({ ...optionsForStep(name), summary: name }, [input]);
    const out = this.seen(checkedStepOutput(name, input, reply));
    return out.directToolCall ? this.directToolCall(input, out, out.directToolCall) : out;
  }

  /** A request's direct tool (D21): its own activity, retried by the tool's policy, not the step's. */
  private async directToolCall(input: StepInput, out: StepOutput, request: DirectToolCallRequest): Promise<StepOutput> {
    this.state.toolCalls += 1;
    const { tool } = request;
    const options = optionsForTool(tool);
    const maxAttempts = options.retry?.maximumAttempts ?? 1;
    const next = directToolCallInput(input, out, request, maxAttempts);
    const summary = `DirectToolCall: ${tool.toolCode} (${tool.sideEffect})`;
    let done: StepOutput;
    try {
      done = checkedStepOutput(
        'DirectToolCall',
        next,
        await acts.DirectToolCall.executeWithOptions({ ...options, summary }, [next])
      );
    } catch (err) {
      const failure = toToolFailure(err, maxAttempts);
      if (!(failure instanceof ToolCallFailure)) throw failure;
      const recorded = failedDirectToolCallInput(next, failure);
      const reply = await acts.DirectToolCall.executeWithOptions({ ...stepActivity, summary: `${summary}: failed` }, [
        recorded,
      ]);
      done = checkedStepOutput('DirectToolCall', recorded, reply);
    }
    this.seen(done);
    return { ...done, audits: [...out.audits, ...done.audits] };
  }

  async mcpPrepare(input: StepInput): Promise<McpPrepareOutput> {
    const summary = 'McpPrepare: PRE_AGENT_MCP rules, skip checks, clear stale MCP context';
    const reply = await acts.McpPrepare.executeWithOptions({ ...stepActivity, summary }, [input]);
    return this.seen(checkedStepOutput('McpPrepare', input, reply));
  }

  async mcpPlan(input: McpPlanInput): Promise<McpPlanOutput> {
    this.state.plannerIterations += 1;
    const summary = `McpPlan: planner iteration ${input.iteration}`;
    const reply = await acts.McpPlan.executeWithOptions({ ...llmActivity, summary }, [input]);
    return this.seen(checkedStepOutput('McpPlan', input, reply));
  }

  async mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput> {
    this.state.toolCalls += 1;
    const options = optionsForTool(tool);
    const summary = `McpToolCall: ${tool.toolCode} (call ${input.call.callIndex}, ${tool.sideEffect})`;
    try {
      const reply = await acts.McpToolCall.executeWithOptions({ ...options, summary }, [input]);
      return this.seen(checkedStepOutput('McpToolCall', input, reply));
    } catch (err) {
      throw toToolFailure(err, options.retry?.maximumAttempts ?? 1);
    }
  }

  async mcpFinalize(input: StepInput): Promise<StepOutput> {
    const summary = 'McpFinalize: loop flags, POST_AGENT_MCP rules';
    const reply = await acts.McpFinalize.executeWithOptions({ ...stepActivity, summary }, [input]);
    return this.seen(checkedStepOutput('McpFinalize', input, reply));
  }

  async record(decision: TurnDecisionRecord): Promise<void> {
    this.state.decisions += 1;
    const callKey = `decision-${this.state.decisions}`;
    await acts.RecordTurnDecision.executeWithOptions({ ...decisionActivity, summary: describeDecision(decision) }, [
      { turn: this.turn, session: this.session as Session, callKey, decision, audits: [] },
    ]);
  }

  awaitApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    // The first workflow type has no TurnVersions of its own; the patches are the ones V2 asks.
    return awaitApproval(this.state, this.session, request, PATCHED_VERSIONS);
  }
}
