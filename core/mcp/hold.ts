import { audit, type AuditRecord } from '../audit';
import type { Json, JsonObject } from '../json';
import type { McpToolDescriptor, ToolCallRequest } from '../turn/contracts';
import type { HeldToolRequest, HeldToolResolution, ToolCallFailure } from '../turn/executor';
import { HELD_TOOL_ACTIONS } from '../turn/operator-decision';
import { DEFAULT_HOLD_TIMEOUT_MS, McpAudit } from './constants';

/**
 * Failure types that mean "the request may have reached the upstream": an activity timeout
 * (start-to-close, or a heartbeat timeout because the worker died) or the tool's own read timeout.
 */
const OUTCOME_UNKNOWN_TYPES: readonly string[] = ['TimeoutFailure', 'TOOL_TIMEOUT'];

/** A NON_IDEMPOTENT_WRITE that may have been applied: it is held whatever its policy (#22). */
export function outcomeUnknown(tool: McpToolDescriptor, failure: ToolCallFailure): boolean {
  return tool.sideEffect === 'NON_IDEMPOTENT_WRITE' && OUTCOME_UNKNOWN_TYPES.includes(failure.failureType);
}

/** Whether a call out of retries waits for an operator instead of going back to the planner. */
export function shouldHold(tool: McpToolDescriptor, failure: ToolCallFailure): boolean {
  return tool.onRetriesExhausted === 'HOLD' || outcomeUnknown(tool, failure);
}

export function heldToolRequest(
  call: ToolCallRequest,
  tool: McpToolDescriptor,
  failure: ToolCallFailure,
  hold: number
): HeldToolRequest {
  return {
    toolCode: call.toolCode,
    callIndex: call.callIndex,
    idempotencyKey: call.idempotencyKey,
    sideEffect: tool.sideEffect,
    attempts: failure.attempts,
    failureType: failure.failureType,
    error: failure.message,
    outcomeUnknown: outcomeUnknown(tool, failure),
    timeoutMs: tool.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS,
    hold,
  };
}

function holdPayload(request: HeldToolRequest): JsonObject {
  return {
    tool_code: request.toolCode,
    call_index: request.callIndex,
    side_effect: request.sideEffect,
    attempts: request.attempts,
    error_class: request.failureType,
    error: request.error,
    outcome_unknown: request.outcomeUnknown,
    hold: request.hold,
  };
}

export function toolHeldAudit(request: HeldToolRequest, expiresAt: string): AuditRecord {
  return audit(McpAudit.ToolHeld, {
    ...holdPayload(request),
    hold_timeout_ms: request.timeoutMs,
    expires_at: expiresAt,
  });
}

export function toolHoldResolvedAudit(request: HeldToolRequest, resolution: HeldToolResolution): AuditRecord {
  const result: Json = resolution.result ?? null;
  return audit(McpAudit.ToolHoldResolved, {
    ...holdPayload(request),
    action: resolution.action,
    decided_by: resolution.decidedBy,
    reason: resolution.reason,
    ...(resolution.action === 'markDone' ? { verified_result: result } : {}),
  });
}

/** One line for the Temporal UI (workflow current details) and the CLI: why the turn waits. */
export function describeHold(request: HeldToolRequest, expiresAt: string): string {
  const unknown = request.outcomeUnknown ? ' — outcome UNKNOWN: verify upstream, then mark-done or fail' : '';
  return [
    `**Held for an operator**: tool \`${request.toolCode}\` (call ${request.callIndex}, ${request.sideEffect})`,
    `failed after ${request.attempts} attempt(s): ${request.failureType}: ${request.error}${unknown}.`,
    `Waits until ${expiresAt}, then answers without it.`,
    'Resolve with `convengine sre retry|skip|fail|mark-done --workflow-id <id>`',
    `or update \`resolveHeldTool\` {"action":"${HELD_TOOL_ACTIONS.join('|')}"}.`,
  ].join('\n');
}
