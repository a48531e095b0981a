import type { AuditRecord } from '../audit';
import type {
  DirectToolCallInput,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  PipelineStepName,
  StepInput,
  StepOutput,
  TurnInput,
} from './contracts';
import type { TurnDecisionRecord } from './executor';

export type StepActivity = (input: StepInput) => Promise<StepOutput>;

export interface RecordDecisionInput {
  turn: TurnInput;
  session: StepInput['session'];
  callKey: string;
  decision: TurnDecisionRecord;
  audits: AuditRecord[];
}

/**
 * Every activity a turn runs, by activity type name. The worker registers an object of this
 * shape (pipeline + MCP factories); the workflow proxies it, importing this file as a type only.
 */
export type TurnActivities = { [K in PipelineStepName]: StepActivity } & {
  McpPrepare(input: StepInput): Promise<McpPrepareOutput>;
  McpPlan(input: McpPlanInput): Promise<McpPlanOutput>;
  McpToolCall(input: McpToolCallInput): Promise<StepOutput>;
  /** The tool of a request's direct tool_request, with the tool's own retry policy (D21). */
  DirectToolCall(input: DirectToolCallInput): Promise<StepOutput>;
  McpFinalize(input: StepInput): Promise<StepOutput>;
  /** Writes a driver decision (loop limit, guardrail block, …) as a TURN_DECISION audit row. */
  RecordTurnDecision(input: RecordDecisionInput): Promise<void>;
};
