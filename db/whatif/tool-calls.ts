import { ErrorType } from '../../core/errors';
import type { Json } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { AuditStage } from '../../core/audit/payloads';
import { parseAudit, readStageRows, type ReadBackPayloads } from '../../core/audit/read';
import type { HeldToolResolution } from '../../core/turn/executor';
import type { StoredAudit } from '../repositories/audit';

/**
 * The tool answers and operators' decisions on held calls (#22) of one recorded turn, from its audit rows: what a
 * what-if replay answers its tool calls and holds with (db/whatif/recording.ts).
 */

/**
 * A failure keeps its type: the replay fails the same way, so the context (and any prompt after it) reads the same.
 * `retryable` as the recorded step error said (absent: not): a request's direct call holds for an operator (#22)
 * only on a retryable failure.
 */
export type RecordedToolOutcome =
  { ok: true; result: Json } | { ok: false; error: string; type: string; retryable?: boolean };

const failureTypeOf = (type: string | undefined): string => type ?? ErrorType.ToolExecutionFailed;

export interface RecordedToolCall {
  turnNumber: number;
  toolCode: string;
  args: Json;
  outcome: RecordedToolOutcome;
}

/**
 * An operator's decision on a held tool call (#22, TOOL_HOLD_RESOLVED): the replay holds where the turn
 * held and takes the same decision, so a retry runs the call again (answered by the retry's recorded
 * result), markDone records the verified result, and fail ends the turn there.
 */
export interface RecordedHoldDecision {
  turnNumber: number;
  toolCode: string;
  callIndex: number | null;
  /** 1 for the call's first hold, 2 after a retry that failed again, … */
  hold: number | null;
  resolution: HeldToolResolution;
}

/** A recorded call and the audit id of the row it was read at. */
type TimedToolCall = [number, RecordedToolCall];

/** `<turn id>@<run id>/<call key>/<index>` → `<turn id>@<run id>/<call key>/`: the rows one activity wrote. */
const segmentOf = (key: string) => key.slice(0, key.lastIndexOf('/') + 1);

function parsedRows(text: string | null): Json {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

function failedOutcome(failure: ReadBackPayloads[typeof AuditStage.StepError]): RecordedToolOutcome {
  return {
    ok: false,
    error: failure.errorMessage ?? 'the recorded call failed',
    type: failureTypeOf(failure.errorType),
    ...(failure._errorMeta?.retryable === true ? { retryable: true } : {}),
  };
}

/**
 * Rows a call wrote without asking its tool (#22), which are no tool's answer: markDone's `<call key>-done` (the
 * operator's verified result) and a held direct call's `<call key>-failed` (its failure, standing after skip or
 * expiry). The replay writes them the same way, from the hold decision.
 */
function answeredWithoutTool(key: string, rows: readonly StoredAudit[]): boolean {
  const callKey = segmentOf(key).slice(0, -1);
  if (callKey.endsWith('-done')) return true;
  const failed = /^(.*)-failed$/.exec(callKey);
  return failed !== null && rows.some((r) => r.idempotencyKey.startsWith(`${failed[1]}-hold-`));
}

/** Planner-path calls: MCP_TOOL_CALL, and in the same activity's rows either its result or its STEP_ERROR. */
function plannerToolCalls(turnNumber: number, rows: readonly StoredAudit[]): TimedToolCall[] {
  const calls: TimedToolCall[] = [];
  for (const { row, payload: call } of readStageRows(rows, McpAudit.ToolCall)) {
    if (answeredWithoutTool(row.idempotencyKey, rows)) continue;
    const segment = segmentOf(row.idempotencyKey);
    const mine = rows.filter((r) => r.idempotencyKey.startsWith(segment));
    const result = readStageRows(mine, McpAudit.ToolResult)[0]?.payload;
    const failure = readStageRows(mine, AuditStage.StepError).at(-1)?.payload;
    const outcome: RecordedToolOutcome | null = result
      ? { ok: true, result: parsedRows(result.rows ?? null) }
      : failure
        ? failedOutcome(failure)
        : null;
    if (outcome) calls.push([row.auditId, { turnNumber, toolCode: call.tool_code, args: call.args ?? {}, outcome }]);
  }
  return calls;
}

/** Errors of the direct path that a tool run produced (not a refusal before the tool ran). */
const REFUSALS = new Set<string>([ErrorType.ToolNotAllowed, ErrorType.ToolArgsInvalid, ErrorType.ValidationFailed]);

/**
 * A direct call that failed and was held for an operator (#22) records no TOOL_ORCHESTRATION_ERROR, only its
 * activity's STEP_ERROR: the failure the hold was decided on, in the order the turn met it.
 */
function heldDirectFailure(row: StoredAudit, rows: readonly StoredAudit[]): RecordedToolOutcome | null {
  const parsed = parseAudit(row);
  if (parsed.kind !== 'read' || parsed.stage !== AuditStage.StepError || parsed.payload.step !== 'DirectToolCall') {
    return null;
  }
  const segment = segmentOf(row.idempotencyKey);
  const callKey = segment.slice(0, -1);
  if (!rows.some((r) => r.idempotencyKey.startsWith(`${callKey}-hold-`))) return null;
  const mine = rows.filter((r) => r.idempotencyKey.startsWith(segment));
  const recorded = [McpAudit.OrchestrationResult, McpAudit.OrchestrationError, AuditStage.StepError] as string[];
  const last = mine.filter((r) => recorded.includes(r.stage)).at(-1);
  return last === row ? failedOutcome(parsed.payload) : null;
}

/** What one direct-path row tells of a call: its result, a failure the tool produced, or a held failure. */
function directOutcome(
  row: StoredAudit,
  rows: readonly StoredAudit[]
): { toolCode: string; args: Json | undefined; outcome: RecordedToolOutcome } | null {
  const parsed = parseAudit(row);
  if (parsed.kind !== 'read') return null;
  if (parsed.stage === McpAudit.OrchestrationResult) {
    const { tool_code: toolCode, result } = parsed.payload;
    return { toolCode, args: undefined, outcome: { ok: true, result: result ?? null } };
  }
  if (parsed.stage === McpAudit.OrchestrationError && !REFUSALS.has(parsed.payload.errorType ?? '')) {
    const { tool_code: toolCode, args, error, errorType } = parsed.payload;
    const outcome = { ok: false as const, error: error ?? 'the recorded call failed', type: failureTypeOf(errorType) };
    return { toolCode, args: args ?? {}, outcome };
  }
  const held = heldDirectFailure(row, rows);
  const request = readStageRows(rows, McpAudit.OrchestrationRequest)[0]?.payload;
  return held && request ? { toolCode: request.tool_code, args: request.args ?? {}, outcome: held } : null;
}

function directToolCalls(turnNumber: number, rows: readonly StoredAudit[]): TimedToolCall[] {
  const requests = readStageRows(rows, McpAudit.OrchestrationRequest).map((r) => r.payload);
  const calls: TimedToolCall[] = [];
  for (const row of rows) {
    const found = answeredWithoutTool(row.idempotencyKey, rows) ? null : directOutcome(row, rows);
    if (!found) continue;
    const args = found.args ?? requests.find((r) => r.tool_code === found.toolCode)?.args ?? {};
    calls.push([row.auditId, { turnNumber, toolCode: found.toolCode, args, outcome: found.outcome }]);
  }
  return calls;
}

/** `<turn id>/<call key>-hold-<n>-resolved-carried/<i>` → `<turn id>/<call key>`: the held call's own key. */
const heldCallKeyOf = (resolvedKey: string) => resolvedKey.replace(/-hold-\d+-resolved(?:-carried)?\/[^/]*$/, '');

/**
 * What a markDone call recorded as its result (`<call key>-done`): the verified result as the turn used it (an
 * HTTP tool's is shaped as its response), which the replay's tools, all answered from the recording, pass on as is.
 */
function markedDoneResult(callKey: string, rows: readonly StoredAudit[]): Json | undefined {
  const mine = rows.filter((r) => r.idempotencyKey.startsWith(`${callKey}-done/`));
  const planner = readStageRows(mine, McpAudit.ToolResult)[0]?.payload;
  if (planner) return parsedRows(planner.rows ?? null);
  return readStageRows(mine, McpAudit.OrchestrationResult)[0]?.payload.result;
}

export function holdDecisionsOf(turnNumber: number, rows: readonly StoredAudit[]): RecordedHoldDecision[] {
  return readStageRows(rows, McpAudit.ToolHoldResolved).map(({ row, payload }) => {
    const result =
      payload.action === 'markDone'
        ? (markedDoneResult(heldCallKeyOf(row.idempotencyKey), rows) ?? payload.verified_result ?? null)
        : undefined;
    return {
      turnNumber,
      toolCode: payload.tool_code,
      callIndex: payload.call_index ?? null,
      hold: payload.hold ?? null,
      resolution: {
        action: payload.action,
        decidedBy: payload.decided_by ?? null,
        reason: payload.reason ?? null,
        ...(result === undefined ? {} : { result }),
      },
    };
  });
}

/** The turn's tool answers in the order the turn met them: a request's direct call and the planner's may be the same question. */
export function toolCallsOf(turnNumber: number, rows: readonly StoredAudit[]): RecordedToolCall[] {
  const timed = [...plannerToolCalls(turnNumber, rows), ...directToolCalls(turnNumber, rows)];
  return timed.sort(([a], [b]) => a - b).map(([, call]) => call);
}
