import type { AuditRecord } from '../audit';
import type {
  ApprovalDecision,
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
  TurnDecisionRecord,
} from './contracts';

export interface ApprovalRequest {
  toolCode: string;
  args: StepInput['session']['inputParams'];
  callIndex: number;
  timeoutMs: number;
}

export type { TurnDecisionRecord } from './contracts';

/** A tool activity that failed for good (non-retryable, or out of retries). */
export class ToolCallFailure extends Error {
  constructor(
    readonly failureType: string,
    message: string,
    readonly attempts: number,
    readonly rootCause: { className: string; message: string } | null = null
  ) {
    super(message);
    this.name = 'ToolCallFailure';
  }
}

/**
 * Runs the units of a turn. The Temporal workflow implements it with activities (plus markers
 * and signals); the in-process runner calls the same activity functions directly.
 */
export interface TurnExecutor {
  step(name: PipelineStepName, input: StepInput): Promise<StepOutput>;
  mcpPrepare(input: StepInput): Promise<McpPrepareOutput>;
  mcpPlan(input: McpPlanInput): Promise<McpPlanOutput>;
  /** Throws ToolCallFailure when the tool failed for good. */
  mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput>;
  mcpFinalize(input: StepInput): Promise<StepOutput>;
  awaitApproval(request: ApprovalRequest): Promise<ApprovalDecision>;
  record(decision: TurnDecisionRecord): Promise<void>;
}

/** Audits decided in driver code, waiting for the next activity to persist them. */
export interface CarriedAudits {
  audits: AuditRecord[];
  key: string;
}

/** Input of the DirectToolCall activity for the tool ToolOrchestration let through (D21). */
export function directToolCallInput(
  input: StepInput,
  out: StepOutput,
  request: DirectToolCallRequest,
  maxAttempts: number
): DirectToolCallInput {
  return { ...input, session: out.session, callKey: `${input.callKey}-direct-tool`, ...request, maxAttempts };
}

/** The same call, asking the activity only to record that it failed for good. */
export function failedDirectToolCallInput(next: DirectToolCallInput, failure: ToolCallFailure): DirectToolCallInput {
  return {
    ...next,
    callKey: `${next.callKey}-failed`,
    failure: { type: failure.failureType, message: failure.message },
  };
}
