import { audit, type AuditRecord } from '../audit';
import type { Json, JsonObject } from '../json';
import type { McpToolDescriptor, StepInput, ToolCallRequest } from '../turn/contracts';
import {
  withAudits,
  type HeldToolRequest,
  type HeldToolResolution,
  type ToolCallFailure,
  type TurnExecutor,
} from '../turn/executor';
import { cutText } from '../text/cut-text';
import { DEFAULT_HOLD_TIMEOUT_MS, McpAudit } from './constants';

/** The failure type a turn ends with when an operator fails its held tool call. */
export const TOOL_HOLD_FAILED = 'TOOL_HOLD_FAILED';

/**
 * The detail of a TOOL_HOLD_FAILED failure that holds the reason the operator gave (a string, or null for none): a
 * payload, which the codecs encrypt with PAYLOAD_ENCRYPTION_KEYS set, as a failure's message is not (docs/security.md §8).
 */
export const OPERATOR_REASON_DETAIL = 'operatorReason';

/** What the TOOL_HOLD_FAILED failure's message says, without the operator's words (they are in its details). */
export function operatorFailedAt(toolCode: string): string {
  return `An operator failed the turn at ${toolCode}`;
}

/** Why a turn an operator failed at its held call ended, in full: what-if's error fact, and what readers show. */
export function operatorFailedMessage(toolCode: string, reason: string | null | undefined): string {
  return `${operatorFailedAt(toolCode)}: ${reason ?? 'no reason given'}`;
}

/** The TOOL_HOLD_FAILED failure as the workflow raises it: the reason travels in its details, never its message. */
export function operatorFailure(toolCode: string, reason: string | null | undefined) {
  return { message: operatorFailedAt(toolCode), details: [{ [OPERATOR_REASON_DETAIL]: reason ?? null }] };
}

/**
 * A failure's message as readers show it: a TOOL_HOLD_FAILED one with the operator's reason from its details
 * (operatorFailure) put back after it. Older histories quote the reason in the message and carry no such detail;
 * those, and every other failure, read as stored.
 */
export function operatorFailedText(type: string | null | undefined, message: string, details: unknown): string {
  if (type !== TOOL_HOLD_FAILED || !Array.isArray(details)) return message;
  const detail: unknown = details[0];
  if (typeof detail !== 'object' || detail === null || !(OPERATOR_REASON_DETAIL in detail)) return message;
  const reason: unknown = Reflect.get(detail, OPERATOR_REASON_DETAIL);
  return `${message}: ${typeof reason === 'string' ? reason : 'no reason given'}`;
}

/**
 * Failure types that mean "the request may have reached the upstream": an activity timeout
 * (start-to-close, or a heartbeat timeout because the worker died) or the tool's own read timeout.
 */
const OUTCOME_UNKNOWN_TYPES: readonly string[] = ['TimeoutFailure', 'TOOL_TIMEOUT'];

/**
 * The failure sdk-core reports for an attempt its stopping worker cancelled (the activity ends with its cancellation
 * whatever the cut call threw, activities/runtime/activity-context.ts): the request may have left too.
 */
export const WORKER_SHUTDOWN_FAILURE = 'WorkerShutdown';

type ShutdownCutAsked = Pick<TurnExecutor, 'holdsShutdownCutWrite'>;

/**
 * A NON_IDEMPOTENT_WRITE that may have been applied: it is held whatever its policy (#22). Whether a stopping worker's
 * cut counts is asked of `exec` (a workflow asks its history), only for such a failure.
 */
export function outcomeUnknown(
  tool: McpToolDescriptor,
  failure: ToolCallFailure,
  exec: ShutdownCutAsked = {}
): boolean {
  if (tool.sideEffect !== 'NON_IDEMPOTENT_WRITE') return false;
  if (OUTCOME_UNKNOWN_TYPES.includes(failure.failureType)) return true;
  return failure.failureType === WORKER_SHUTDOWN_FAILURE && exec.holdsShutdownCutWrite?.() !== false;
}

/** Whether a call out of retries waits for an operator instead of failing for good (ANSWER). */
export function shouldHold(tool: McpToolDescriptor, failure: ToolCallFailure, exec: ShutdownCutAsked = {}): boolean {
  return tool.onRetriesExhausted === 'HOLD' || outcomeUnknown(tool, failure, exec);
}

export function heldToolRequest(
  call: ToolCallRequest,
  tool: McpToolDescriptor,
  failure: ToolCallFailure,
  hold: number,
  exec: ShutdownCutAsked = {}
): HeldToolRequest {
  return {
    toolCode: call.toolCode,
    callIndex: call.callIndex,
    idempotencyKey: call.idempotencyKey,
    sideEffect: tool.sideEffect,
    attempts: failure.attempts,
    failureType: failure.failureType,
    error: failure.message,
    outcomeUnknown: outcomeUnknown(tool, failure, exec),
    timeoutMs: tool.holdTimeoutMs ?? DEFAULT_HOLD_TIMEOUT_MS,
    hold,
  };
}

/** Where a held call's inputs go: `${callKey}${suffix}` of the call's own key, as the caller builds it. */
export interface HeldCallInputs<I> {
  /** The input of the activity that audits the hold (`-hold-<n>-held`, `-hold-<n>-resolved`). */
  audit(suffix: string): StepInput;
  /** The call's own input under a new key, to run it again. */
  call(suffix: string): I;
}

/**
 * #22, for a planner's call and a request's direct call alike: a call out of retries that must be held
 * waits for an operator (`exec.holdToolCall`), whose decision is recorded (TOOL_HOLD_RESOLVED). Returns the
 * input to run the call again — retry: the same idempotency key under `-retry-<hold>`; markDone: `-done`
 * with the verified result, which the activity records instead of calling the tool — or null, when the
 * failure stands (skip, the hold timed out, the tool does not hold, the executor cannot hold): the caller
 * records it as it would have without a hold. The keys are in histories: they must not change.
 */
export async function resolveHeldCall<I extends StepInput>(
  exec: Pick<TurnExecutor, 'holdToolCall' | 'record' | 'holdsShutdownCutWrite'>,
  held: { call: ToolCallRequest; tool: McpToolDescriptor; failure: ToolCallFailure; hold: number },
  inputs: HeldCallInputs<I>
): Promise<(I & { verifiedResult?: Json }) | null> {
  const { call, tool, failure, hold } = held;
  if (!exec.holdToolCall || !shouldHold(tool, failure, exec)) return null;
  const request = heldToolRequest(call, tool, failure, hold, exec);
  const resolution = await exec.holdToolCall(request, (suffix) => inputs.audit(`-hold-${hold}-${suffix}`));
  if (!resolution) return null;
  await exec.record({
    kind: 'TOOL_HOLD_RESOLVED',
    toolCode: request.toolCode,
    reason: resolution.action,
    iteration: request.callIndex,
  });
  if (resolution.action === 'retry') return inputs.call(`-retry-${hold}`);
  if (resolution.action === 'markDone') return { ...inputs.call('-done'), verifiedResult: resolution.result ?? null };
  return null;
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

/** TOOL_HOLD_RESOLVED as written (holdPayload's fields and the decision); what-if replays the decision from it. */
export interface ToolHoldResolvedPayload {
  tool_code: string;
  call_index: number;
  hold: number;
  action: HeldToolResolution['action'];
  decided_by: string | null;
  reason: string | null;
  /** markDone only. */
  verified_result: Json;
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

/** The McpToolHold input that writes TOOL_HELD, for a hold that waits until `expiresAt`; every executor's. */
export function heldAuditInput(inputFor: (suffix: string) => StepInput, request: HeldToolRequest, expiresAt: string) {
  return withAudits(inputFor('held'), toolHeldAudit(request, expiresAt));
}

/** The McpToolHold input that writes TOOL_HOLD_RESOLVED with the operator's decision. */
export function resolvedAuditInput(
  inputFor: (suffix: string) => StepInput,
  request: HeldToolRequest,
  resolution: HeldToolResolution
) {
  return withAudits(inputFor('resolved'), toolHoldResolvedAudit(request, resolution));
}

/**
 * The last error as the current details show it: the whole of it is in the TOOL_HELD row, the held call's query,
 * `convengine sre list` and the console.
 */
const DETAILS_ERROR_CHARS = 120;

/**
 * Web UI 2.42.1 sizes the frame of the current details to its body's scrollHeight + 2 px, which leaves out the first
 * paragraph's top margin, so the last 14 px of the text are cut off. A last paragraph of one no-break space takes them.
 */
const UI_CLIP_GUARD = '\n\n\u00a0';

/**
 * Why the turn waits and how to resolve it, for the Temporal UI (the workflow's current details, markdown): the
 * command ready to paste with the turn's own `workflowId`, a line break (`\`) before each sentence.
 */
export function describeHold(request: HeldToolRequest, expiresAt: string, workflowId: string): string {
  const error =
    request.error.length > DETAILS_ERROR_CHARS ? `${cutText(request.error, DETAILS_ERROR_CHARS)}…` : request.error;
  const unknown = request.outcomeUnknown ? '\\\nOutcome UNKNOWN: verify upstream, then mark-done or fail.' : '';
  const lines = [
    `**Held for an operator**: \`${request.toolCode}\` (call ${request.callIndex}, ${request.sideEffect}) failed in ` +
      `${request.attempts} activity attempt(s); the last one: ${request.failureType}: ${error}.${unknown}`,
    `Answers without it at ${expiresAt}. Resolve with \`convengine sre retry --workflow-id ${workflowId}\` ` +
      '(or skip, fail, mark-done) or the update `resolveHeldTool`.',
  ];
  return lines.join('\\\n') + UI_CLIP_GUARD;
}
