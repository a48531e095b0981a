import type { AuditRecord } from '../../../core/audit';
import type { Json } from '../../../core/json';
import {
  applyPlanDecision,
  applySemanticSignal,
  applyToolResult,
  clearMcpTurnContext,
  markAbruptedIfUnanswered,
  writeLoopFlags,
} from '../../../core/mcp';
import type { Session } from '../../../core/session';
import { cloneSession } from '../../../core/step/scope';
import type {
  ApprovalDecision,
  McpLoopPlan,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  McpToolDescriptor,
  PlannerDecision,
  StepInput,
  StepOutput,
  TurnInput,
} from '../../../core/turn/contracts';
import { blankSession } from '../../../core/turn/session-factory';
import {
  ToolCallFailure,
  type ApprovalRequest,
  type TurnDecisionRecord,
  type TurnExecutor,
} from '../../../core/turn/executor';

export type ToolBehaviour = Json | ToolCallFailure | ((input: McpToolCallInput) => Json);

/**
 * A TurnExecutor whose "activities" apply the same pure session updates as the real ones, with
 * scripted planner decisions and tool results. It records every call so driver tests can assert
 * what ran, in which order, with which keys and carried audits.
 */
export class FakeMcpExecutor implements TurnExecutor {
  readonly calls: string[] = [];
  readonly decisions: TurnDecisionRecord[] = [];
  readonly toolInputs: McpToolCallInput[] = [];
  readonly approvals: ApprovalRequest[] = [];
  readonly carried: { callKey: string; carryKey?: string; stages: string[] }[] = [];
  /** Every audit carried to an activity, in order. */
  readonly carriedAudits: AuditRecord[] = [];
  private planIndex = 0;

  constructor(
    private readonly plan: McpLoopPlan,
    private readonly planner: PlannerDecision[],
    private readonly tools: Record<string, ToolBehaviour> = {},
    private readonly approval: ApprovalDecision = { decision: 'APPROVED', reason: null, decidedBy: 'ops' }
  ) {}

  private note(input: StepInput): void {
    this.calls.push(input.callKey);
    if (input.carryAudits?.length) {
      this.carried.push({
        callKey: input.callKey,
        carryKey: input.carryKey,
        stages: input.carryAudits.map((a) => a.stage),
      });
      this.carriedAudits.push(...input.carryAudits);
    }
  }

  step(): Promise<StepOutput> {
    throw new Error('pipeline steps are not part of the MCP driver tests');
  }

  async mcpPrepare(input: StepInput): Promise<McpPrepareOutput> {
    this.note(input);
    const session = cloneSession(input.session);
    const audits: AuditRecord[] = [];
    if (this.plan.run) {
      clearMcpTurnContext(session);
      writeLoopFlags(session, false, false, this.plan.maxLoops);
      audits.push({ stage: 'MCP_CONTEXT_CLEARED', payload: {} });
    }
    return { session, audits, plan: this.plan };
  }

  async mcpPlan(input: McpPlanInput): Promise<McpPlanOutput> {
    this.note(input);
    const decision = this.planner[this.planIndex++];
    if (!decision) throw new Error(`unscripted planner call ${input.iteration}`);
    const session = cloneSession(input.session);
    const audits = applyPlanDecision(session, decision);
    return { session, audits, decision };
  }

  async mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput> {
    this.note(input);
    this.toolInputs.push(input);
    const behaviour = this.tools[input.call.toolCode];
    if (behaviour === undefined) throw new Error(`unscripted tool ${input.call.toolCode}`);
    if (behaviour instanceof ToolCallFailure) throw behaviour;
    const result = typeof behaviour === 'function' ? behaviour(input) : behaviour;
    const session = cloneSession(input.session);
    const audits = [
      ...applyToolResult(session, input.call, tool.toolGroup, result),
      ...applySemanticSignal(session, input.call, tool.toolGroup, result),
    ];
    return { session, audits };
  }

  async mcpFinalize(input: StepInput): Promise<StepOutput> {
    this.note(input);
    const session = cloneSession(input.session);
    markAbruptedIfUnanswered(session);
    return { session, audits: [] };
  }

  async awaitApproval(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.approvals.push(request);
    return this.approval;
  }

  async record(decision: TurnDecisionRecord): Promise<void> {
    this.decisions.push(decision);
  }
}

export function tool(toolCode: string, extra: Partial<McpToolDescriptor> = {}): McpToolDescriptor {
  return {
    toolCode,
    toolGroup: 'HTTP_API',
    sideEffect: 'READ_ONLY',
    requiresApproval: false,
    approvalTimeoutMs: null,
    directCallable: true,
    retry: {
      maxAttempts: null,
      initialIntervalMs: null,
      backoffCoefficient: null,
      maxIntervalMs: null,
      startToCloseTimeoutMs: null,
    },
    ...extra,
  };
}

export function loopPlan(tools: McpToolDescriptor[], extra: Partial<McpLoopPlan> = {}): McpLoopPlan {
  return {
    run: true,
    skipReason: null,
    maxLoops: 5,
    tools,
    nextToolGuard: { enabled: false, failClosed: false, allowedNextByCurrentTool: {} },
    ...extra,
  };
}

export function callTool(
  toolCode: string,
  args: Record<string, Json> = {},
  operationTag: string | null = null
): PlannerDecision {
  return { action: 'CALL_TOOL', toolCode, args, answer: null, operationTag };
}

export function answer(text: string): PlannerDecision {
  return { action: 'ANSWER', toolCode: null, args: {}, answer: text, operationTag: null };
}

export function stepInput(session?: Partial<Session>): StepInput {
  const turn: TurnInput = {
    conversationId: '00000000-0000-0000-0000-000000000001',
    turnNumber: 3,
    turnId: 'turn-00000000-0000-0000-0000-000000000001-3',
    message: 'check order',
    inputParams: {},
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: '2026-01-01T00:00:00.000Z',
  };
  return {
    turn,
    session: { ...blankSession(turn), configVersion: 'v1', intent: 'ORDER_DIAGNOSTICS', state: 'ANALYZE', ...session },
    callKey: '19-McpTool',
  };
}
