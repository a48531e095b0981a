import type { AuditRecord } from '../audit';
import type { Session } from '../session';
import type {
  McpLoopPlan,
  McpToolCallInput,
  McpToolDescriptor,
  PlannerDecision,
  StepInput,
  StepOutput,
  StopResult,
  ToolCallRequest,
} from '../turn/contracts';
import { ToolCallFailure, type ApprovalRequest, type TurnExecutor } from '../turn/executor';
import type { PlannedStep } from '../turn/step-runs';
import { BlockReason, DEFAULT_APPROVAL_TIMEOUT_MS, POLICY_RESTRICTED_TAG } from './constants';
import { finalAnswerDetermined, readObservations } from './context';
import {
  DIRECT_CALL_FAILED_REASON,
  failedDirectCall,
  toolCallSignature,
  type FailedDirectCall,
} from './direct-failure';
import { resolveHeldCall } from './hold';
import { decideToolCall } from './tool-policy';
import { latestSummary } from './observations';
import {
  applyApprovalDenied,
  applyDuplicateSuppressed,
  applyGuardBlock,
  applyPolicyRestricted,
  applyRepeatRefused,
  applyToolFailure,
  approvalAudits,
  type Applied,
} from './outcomes';

/**
 * The MCP step, unrolled (DESIGN): McpPrepare (PRE_AGENT_MCP rules, skip checks, context clear),
 * then up to `maxLoops` planner iterations — McpPlan, the driver's own checks (policy tag,
 * duplicate call, next-tool guardrail incl. scope, approval), one McpToolCall per CALL_TOOL —
 * then McpFinalize (abrupted flag, POST_AGENT_MCP rules). Runs in workflow code: it only
 * decides from what activities returned, records each decision with `exec.record`, and hands the
 * audits of its decisions to the next activity as `carryAudits`.
 */
class McpRun {
  session: Session;
  private carry: AuditRecord[] = [];
  private carrySeq = 0;
  private readonly executed = new Set<string>();
  private callIndex = 0;
  readonly audits: AuditRecord[] = [];
  stop: StopResult | undefined;

  constructor(
    private readonly base: StepInput,
    private readonly exec: TurnExecutor,
    private readonly plan: McpLoopPlan,
    session: Session,
    private readonly after: readonly PlannedStep[],
    /** This turn's direct tool call its tool failed, which the planner may not send again. */
    private readonly failedDirect: FailedDirectCall | null
  ) {
    this.session = session;
  }

  /** Input for the next activity; pending driver audits ride along and are persisted first. */
  input(suffix: string): StepInput {
    const input: StepInput = { ...this.base, session: this.session, callKey: `${this.base.callKey}-${suffix}` };
    if (this.carry.length > 0) {
      this.carrySeq += 1;
      input.carryAudits = this.carry;
      input.carryKey = `${this.base.callKey}-carried-${this.carrySeq}`;
      this.audits.push(...this.carry);
      this.carry = [];
    }
    return input;
  }

  take(out: StepOutput): void {
    this.session = out.session;
    this.audits.push(...out.audits);
    if (out.stop && !this.stop) this.stop = out.stop;
  }

  output(): StepOutput {
    return this.stop
      ? { session: this.session, audits: this.audits, stop: this.stop }
      : { session: this.session, audits: this.audits };
  }

  end(applied: Applied): true {
    this.session = applied.session;
    this.carry.push(...applied.audits);
    return true;
  }

  /** Runs the planner loop; true when it ended by itself (answer, block, error), false at the loop limit. */
  async loop(): Promise<boolean> {
    for (let iteration = 1; iteration <= this.plan.maxLoops; iteration++) {
      const planned = await this.exec.mcpPlan({ ...this.input(`plan-${iteration}`), iteration });
      this.take(planned);
      if (this.stop || finalAnswerDetermined(this.session) || planned.decision.action !== 'CALL_TOOL') return true;
      if (await this.handleCall(planned.decision, iteration)) return true;
    }
    return false;
  }

  /** One CALL_TOOL decision; true when it ended the loop. */
  private async handleCall(d: PlannerDecision, iteration: number): Promise<boolean> {
    const toolCode = d.toolCode ?? '';
    if ((d.operationTag ?? '').toUpperCase() === POLICY_RESTRICTED_TAG) {
      await this.exec.record({ kind: 'GUARDRAIL_BLOCKED', toolCode, reason: BlockReason.PolicyRestricted, iteration });
      return this.end(applyPolicyRestricted(this.session, d));
    }
    const observations = readObservations(this.session);
    const signature = toolCallSignature(toolCode, d.args);
    if (await this.repeatsFailedDirect(d, signature, iteration)) return true;
    if (this.executed.has(signature)) {
      await this.exec.record({
        kind: 'DUPLICATE_SUPPRESSED',
        toolCode,
        reason: 'DUPLICATE_TOOL_CALL_SUPPRESSED',
        iteration,
      });
      return this.end(applyDuplicateSuppressed(this.session, d, latestSummary(observations)));
    }
    const verdict = decideToolCall({
      origin: 'PLANNER',
      toolCode,
      tools: this.plan.tools,
      observations,
      nextToolGuard: this.plan.nextToolGuard,
    });
    if (!verdict.allowed) {
      await this.exec.record({ kind: 'GUARDRAIL_BLOCKED', toolCode, reason: verdict.reason, iteration });
      return this.end(applyGuardBlock(this.session, d, verdict.reason, verdict.currentTool));
    }
    const tool = verdict.tool;
    this.callIndex += 1;
    const call: ToolCallRequest = {
      toolCode: tool.toolCode,
      args: d.args,
      callIndex: this.callIndex,
      idempotencyKey: `${this.base.turn.turnId}/tool/${this.callIndex}`,
    };
    if (verdict.needsApproval && !(await this.approve(call, tool))) return true;
    const ended = await this.runTool(call, tool);
    if (!ended) this.executed.add(signature);
    return ended;
  }

  /**
   * Whether the call is the direct call its tool failed this turn; then it is refused, not sent (a tool whose
   * upstream asked to wait would get a second request), and ends the loop with that failure. Turns recorded before
   * the refusal (the executor asks their history) send it, as they did.
   */
  private async repeatsFailedDirect(d: PlannerDecision, signature: string, iteration: number): Promise<boolean> {
    const failed = this.failedDirect;
    if (failed?.signature !== signature || this.exec.refusesFailedDirectRepeat?.() === false) return false;
    const toolCode = d.toolCode ?? failed.toolCode;
    await this.exec.record({ kind: 'REPEAT_REFUSED', toolCode, reason: DIRECT_CALL_FAILED_REASON, iteration });
    return this.end(applyRepeatRefused(this.session, d, failed));
  }

  /** D16: waits for a human decision; a rejection or timeout ends the loop without running the tool. */
  private async approve(call: ToolCallRequest, tool: McpToolDescriptor): Promise<boolean> {
    const request: ApprovalRequest = {
      toolCode: call.toolCode,
      args: call.args,
      callIndex: call.callIndex,
      sideEffect: tool.sideEffect,
      timeoutMs: tool.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
    };
    // Its keys are in histories: they must not change.
    const decision = await this.exec.awaitApproval(request, (suffix) =>
      this.input(`tool-${call.callIndex}-approval-${suffix}`)
    );
    await this.exec.record({
      kind: 'APPROVAL',
      toolCode: call.toolCode,
      reason: decision.decision,
      iteration: call.callIndex,
    });
    this.carry.push(...approvalAudits(request, decision));
    if (decision.decision === 'APPROVED') return true;
    this.session = applyApprovalDenied(this.session, call, tool, decision);
    return false;
  }

  /**
   * Runs the tool activity; true when the loop ends here (tool failure, semantic stop). A call out
   * of retries that must be held (#22) waits for an operator, and runs again as resolveHeldCall says;
   * a failure that stands ends the loop as the tool's error (applyToolFailure).
   */
  private async runTool(call: ToolCallRequest, tool: McpToolDescriptor): Promise<boolean> {
    const key = `tool-${call.callIndex}`;
    let input: McpToolCallInput = { ...this.input(key), call };
    for (let hold = 1; ; hold++) {
      try {
        this.take(await this.exec.mcpToolCall(input, tool));
        return this.stop !== undefined || finalAnswerDetermined(this.session);
      } catch (err) {
        if (!(err instanceof ToolCallFailure)) throw err;
        const again = await resolveHeldCall(
          this.exec,
          { call, tool, failure: err, hold },
          {
            audit: (suffix) => this.input(`${key}${suffix}`),
            call: (suffix): McpToolCallInput => ({ ...this.input(`${key}${suffix}`), call }),
          }
        );
        if (!again) return this.failed(call, tool, err);
        input = again;
      }
    }
  }

  private async failed(call: ToolCallRequest, tool: McpToolDescriptor, failure: ToolCallFailure): Promise<boolean> {
    await this.exec.record({
      kind: 'TOOL_FAILED',
      toolCode: call.toolCode,
      reason: failure.failureType,
      iteration: call.callIndex,
    });
    return this.end(applyToolFailure(this.session, call, tool, failure));
  }

  /** A rule SHORT_CIRCUIT during the loop ends rule evaluation for the turn (D5): no POST_AGENT_MCP pass. */
  async finalize(loopEnded: boolean): Promise<void> {
    if (this.stop) return;
    if (!loopEnded) {
      await this.exec.record({
        kind: 'LOOP_LIMIT',
        toolCode: null,
        reason: 'MCP_TOOL_MAX_LOOPS',
        limit: this.plan.maxLoops,
      });
    }
    this.take(await this.exec.mcpFinalize(this.input('finalize'), this.after));
  }
}

/** McpPrepare of the MCP step under `mcpKey`, as the steps before it announce it (core/turn/step-runs.ts). */
export function mcpPrepareStep(mcpKey: string): PlannedStep {
  return { name: 'McpPrepare', callKey: `${mcpKey}-prepare` };
}

/** `after`: the steps the driver asks for once the MCP step is done, announced with McpPrepare and McpFinalize. */
export async function runMcpStep(
  base: StepInput,
  exec: TurnExecutor,
  after: readonly PlannedStep[] = []
): Promise<StepOutput> {
  const prepared = await exec.mcpPrepare({ ...base, callKey: mcpPrepareStep(base.callKey).callKey }, after);
  // The session the steps before the MCP step left: its PRE_AGENT_MCP rules cannot change what failed.
  const run = new McpRun(base, exec, prepared.plan, prepared.session, after, failedDirectCall(base.session));
  run.audits.push(...prepared.audits);
  if (prepared.stop) run.stop = prepared.stop;
  if (!prepared.plan.run) {
    await exec.record({ kind: 'MCP_SKIPPED', toolCode: null, reason: prepared.plan.skipReason ?? 'SKIPPED' });
    return run.output();
  }
  const ended = await run.loop();
  await run.finalize(ended);
  return run.output();
}
