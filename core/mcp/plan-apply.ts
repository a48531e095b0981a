import { audit, type AuditRecord } from '../audit';
import type { Json, JsonObject } from '../json';
import type { Session } from '../session';
import type { PlannerDecision, ToolCallRequest } from '../turn/contracts';
import { ARGS_REJECTED_STATUS, McpAudit, McpOutcome, McpStatus } from './constants';
import { appendObservation, setParam, writeFinalAnswer, writeLifecycle } from './context';
import {
  CLARIFICATION_REASON,
  semanticSignal,
  writeClarificationRequired,
  writeSemanticToolResult,
  writeUnsupported,
} from './semantic-context';

/**
 * Session updates that follow from a planner decision or a tool result. They run inside the
 * McpPlan / McpToolCall activities (on the activity's session copy) and are pure so the same
 * code can be unit-tested and benchmarked without I/O.
 */
export function applyPlanDecision(session: Session, decision: PlannerDecision): AuditRecord[] {
  setParam(session, 'mcp_action', decision.action);
  setParam(session, 'mcp_tool_code', decision.toolCode);
  setParam(session, 'mcp_tool_args', decision.args);
  setParam(session, 'mcp_operation_tag', decision.operationTag);
  const base = { lastAction: decision.action, lastToolCode: decision.toolCode, lastToolArgs: decision.args };
  if (decision.action === 'CALL_TOOL') {
    writeLifecycle(session, { status: McpStatus.ToolResult, outcome: McpOutcome.InProgress, finished: false, ...base });
    return [];
  }
  const answer = decision.answer ?? '';
  writeFinalAnswer(session, answer);
  writeLifecycle(session, { status: McpStatus.Answer, outcome: McpOutcome.Answered, finished: true, ...base });
  return [audit(McpAudit.FinalAnswer, { answer })];
}

/**
 * A call's arguments did not match the tool's input schema: the planner gets an observation that
 * says which arguments are wrong and what the tool accepts, so it can call again correctly (or
 * answer); the loop goes on. Audited as TOOL_ARGS_REJECTED.
 */
export function applyArgsRejected(
  session: Session,
  call: ToolCallRequest,
  toolGroup: string,
  rejection: { problems: string[]; schema: Json }
): AuditRecord[] {
  const message = `The arguments for ${call.toolCode} were rejected and the tool was not run: ${rejection.problems.join('; ')}. Call it again with arguments that match input_schema, or answer.`;
  const result: JsonObject = {
    error: McpAudit.ToolArgsRejected,
    message,
    problems: rejection.problems,
    input_schema: rejection.schema,
  };
  appendObservation(session, { toolCode: call.toolCode, args: call.args, status: ARGS_REJECTED_STATUS, result });
  writeToolCallLifecycle(session, call, toolGroup);
  const payload = { tool_code: call.toolCode, tool_group: toolGroup, args: call.args, problems: rejection.problems };
  return [audit(McpAudit.ToolArgsRejected, payload)];
}

/** A tool returned: record the observation, the lifecycle and MCP_TOOL_RESULT. */
export function applyToolResult(
  session: Session,
  call: ToolCallRequest,
  toolGroup: string,
  result: Json
): AuditRecord[] {
  appendObservation(session, { toolCode: call.toolCode, args: call.args, status: 'SUCCESS', result });
  writeSemanticToolResult(session, call.toolCode, result);
  setParam(session, 'mcp_tool_group', toolGroup);
  writeToolCallLifecycle(session, call, toolGroup);
  return [
    audit(McpAudit.ToolResult, {
      tool_code: call.toolCode,
      tool_group: toolGroup,
      rows: JSON.stringify(result),
    } satisfies ToolResultPayload),
  ];
}

function stopWithAnswer(
  session: Session,
  call: ToolCallRequest,
  toolGroup: string,
  answer: string,
  reason: string
): AuditRecord[] {
  writeFinalAnswer(session, answer);
  writeLifecycle(session, {
    status: McpStatus.Answer,
    outcome: McpOutcome.Answered,
    finished: true,
    lastAction: 'ANSWER',
    lastToolCode: call.toolCode,
    lastToolGroup: toolGroup,
    lastToolArgs: call.args,
  });
  return [audit(McpAudit.FinalAnswer, { answer, reason, tool_code: call.toolCode })];
}

/**
 * A semantic interpret/query result can end the loop (§7.4): the question is ambiguous (ask the
 * user, resume next turn) or the operation is unsupported (answer with the reason).
 */
export function applySemanticSignal(
  session: Session,
  call: ToolCallRequest,
  toolGroup: string,
  result: Json
): AuditRecord[] {
  const signal = semanticSignal(call.toolCode, result);
  if (signal.unsupportedMessage) {
    delete session.context['pending_clarification'];
    writeUnsupported(session, call.toolCode, signal.unsupportedMessage);
    return stopWithAnswer(session, call, toolGroup, signal.unsupportedMessage, 'SEMANTIC_UNSUPPORTED');
  }
  if (signal.clarificationQuestion) {
    session.pendingClarification = { question: signal.clarificationQuestion, reason: CLARIFICATION_REASON };
    writeClarificationRequired(session, call.toolCode, signal.clarificationQuestion);
    return stopWithAnswer(session, call, toolGroup, signal.clarificationQuestion, 'SEMANTIC_CLARIFICATION_REQUIRED');
  }
  return [];
}

/** MCP_TOOL_CALL payload (§6.1); the what-if replay reads the call back from it (core/audit/read.ts). */
export type ToolCallPayload = {
  tool_code: string;
  args: JsonObject;
  action: 'CALL_TOOL';
  intent: string;
  state: string;
  routingDecision: Json;
  observation_count: number;
  current_observation_tool: string;
  call_index: number;
};

/** MCP_TOOL_RESULT payload: the tool's result as JSON text, the what-if replay's recorded answer. */
export type ToolResultPayload = { tool_code: string; tool_group: string; rows: string };

/** MCP_TOOL_CALL payload (§6.1): written by the tool activity before the tool runs. */
export function toolCallAuditPayload(
  session: Session,
  call: ToolCallRequest,
  currentTool: string,
  observationCount: number
): ToolCallPayload {
  return {
    tool_code: call.toolCode,
    args: call.args,
    action: 'CALL_TOOL',
    intent: session.intent,
    state: session.state,
    routingDecision: (session.inputParams['routing_decision'] as Json | undefined) ?? null,
    observation_count: observationCount,
    current_observation_tool: currentTool,
    call_index: call.callIndex,
  };
}

/** After a CALL_TOOL, answered or refused: the loop goes on with the tool's observation. */
function writeToolCallLifecycle(session: Session, call: ToolCallRequest, toolGroup: string): void {
  writeLifecycle(session, {
    status: McpStatus.ToolResult,
    outcome: McpOutcome.InProgress,
    finished: false,
    lastAction: 'CALL_TOOL',
    lastToolCode: call.toolCode,
    lastToolGroup: toolGroup,
    lastToolArgs: call.args,
  });
}
