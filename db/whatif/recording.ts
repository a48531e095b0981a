import { and, asc, countDistinct, eq, gte, isNotNull, min } from 'drizzle-orm';
import { ErrorType } from '../../core/errors';
import type { Json, JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { turnFactsOf, type TurnFacts } from '../../core/whatif/facts';
import type { Database } from '../pool';
import { listAudits, type StoredAudit } from '../repositories/audit';
import { ceAudit, ceLlmCallLog } from '../schema';

/**
 * Everything a what-if replay feeds back for one recorded conversation, read from what the engine
 * already records: the turns' messages (USER_INPUT audits), every model answer (ce_llm_call_log:
 * the prompt as sent, `system\n\nuser`, and the answer), every tool result (MCP_TOOL_CALL with its
 * MCP_TOOL_RESULT, or the direct path's TOOL_ORCHESTRATION_REQUEST/RESULT), approval decisions, and
 * per turn the facts the replay is compared with.
 */
export interface RecordedTurn {
  turnNumber: number;
  message: string;
  inputParams: JsonObject;
  /** When the recorded turn ran (its USER_INPUT row): the replay's clock for this turn. */
  receivedAt: Date;
  facts: TurnFacts;
}

export interface RecordedLlmCall {
  turnNumber: number | null;
  /** The Temporal run that made the call; null in process and before migration 0016. */
  runId: string | null;
  kind: string;
  prompt: string;
  response: string;
}

/** A failure keeps its type: the replay fails the same way, so the context (and any prompt after it) reads the same. */
export type RecordedToolOutcome = { ok: true; result: Json } | { ok: false; error: string; type: string };

const failureTypeOf = (v: Json | undefined): string => str(v) ?? ErrorType.ToolExecutionFailed;

export interface RecordedToolCall {
  turnNumber: number;
  toolCode: string;
  args: Json;
  outcome: RecordedToolOutcome;
}

export interface RecordedApproval {
  turnNumber: number;
  toolCode: string;
  callIndex: number | null;
  decision: 'APPROVED' | 'REJECTED' | 'EXPIRED';
  reason: string | null;
  decidedBy: string | null;
}

export interface Recording {
  conversationId: string;
  turns: RecordedTurn[];
  llmCalls: RecordedLlmCall[];
  toolCalls: RecordedToolCall[];
  approvals: RecordedApproval[];
}

const str = (v: Json | undefined): string | null => (typeof v === 'string' ? v : null);
const objectOr = (v: Json | undefined): JsonObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? v : {};
/** `<turn id>/<call key>/<index>` → `<turn id>/<call key>/`: the rows one activity wrote. */
const segmentOf = (key: string) => key.slice(0, key.lastIndexOf('/') + 1);

function byTurn(rows: readonly StoredAudit[]): Map<number, StoredAudit[]> {
  const turns = new Map<number, StoredAudit[]>();
  for (const row of rows) {
    if (row.turnNumber === null) continue;
    const rows = turns.get(row.turnNumber);
    if (rows) rows.push(row);
    else turns.set(row.turnNumber, [row]);
  }
  return turns;
}

function parsedRows(text: string | null): Json {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return text;
  }
}

/** Planner-path calls: MCP_TOOL_CALL, and in the same activity's rows either its result or its STEP_ERROR. */
function plannerToolCalls(turnNumber: number, rows: readonly StoredAudit[]): RecordedToolCall[] {
  const calls: RecordedToolCall[] = [];
  for (const call of rows.filter((r) => r.stage === McpAudit.ToolCall)) {
    const segment = segmentOf(call.idempotencyKey);
    const mine = rows.filter((r) => r.idempotencyKey.startsWith(segment));
    const result = mine.find((r) => r.stage === McpAudit.ToolResult);
    const failure = mine.filter((r) => r.stage === 'STEP_ERROR').at(-1);
    const toolCode = str(call.payload['tool_code']) ?? '';
    const outcome: RecordedToolOutcome | null = result
      ? { ok: true, result: parsedRows(str(result.payload['rows'])) }
      : failure
        ? {
            ok: false,
            error: str(failure.payload['errorMessage']) ?? 'the recorded call failed',
            type: failureTypeOf(failure.payload['errorType']),
          }
        : null;
    if (outcome) calls.push({ turnNumber, toolCode, args: call.payload['args'] ?? {}, outcome });
  }
  return calls;
}

/** Errors of the direct path that a tool run produced (not a refusal before the tool ran). */
const REFUSALS = new Set<string>([ErrorType.ToolNotAllowed, ErrorType.ToolArgsInvalid, ErrorType.ValidationFailed]);

function directToolCalls(turnNumber: number, rows: readonly StoredAudit[]): RecordedToolCall[] {
  const calls: RecordedToolCall[] = [];
  for (const row of rows) {
    const toolCode = str(row.payload['tool_code']) ?? '';
    if (row.stage === McpAudit.OrchestrationResult) {
      const request = rows.find(
        (r) => r.stage === McpAudit.OrchestrationRequest && r.payload['tool_code'] === toolCode
      );
      const args = request?.payload['args'] ?? {};
      calls.push({ turnNumber, toolCode, args, outcome: { ok: true, result: row.payload['result'] ?? null } });
    } else if (row.stage === McpAudit.OrchestrationError && !REFUSALS.has(str(row.payload['errorType']) ?? '')) {
      const error = str(row.payload['error']) ?? 'the recorded call failed';
      const type = failureTypeOf(row.payload['errorType']);
      calls.push({ turnNumber, toolCode, args: row.payload['args'] ?? {}, outcome: { ok: false, error, type } });
    }
  }
  return calls;
}

const DECISIONS: Record<string, RecordedApproval['decision']> = {
  [McpAudit.ApprovalGranted]: 'APPROVED',
  [McpAudit.ApprovalRejected]: 'REJECTED',
  [McpAudit.ApprovalExpired]: 'EXPIRED',
};

function approvalsOf(turnNumber: number, rows: readonly StoredAudit[]): RecordedApproval[] {
  return rows.flatMap((row) => {
    const decision = DECISIONS[row.stage];
    if (!decision) return [];
    const callIndex = row.payload['call_index'];
    return [
      {
        turnNumber,
        toolCode: str(row.payload['tool_code']) ?? '',
        callIndex: typeof callIndex === 'number' ? callIndex : null,
        decision,
        reason: str(row.payload['reason']),
        decidedBy: str(row.payload['decided_by']),
      },
    ];
  });
}

/**
 * The rows of the run a turn ended with. An operator's retry of a failed turn is a new run of the same
 * workflow: it rewrites every row it writes again (same keys), and its USER_INPUT row first, but rows
 * only the failed run wrote stay, such as its tool failures. The run that wrote USER_INPUT last is
 * the turn's; rows of no run (an operator's action, the in-process runner, older rows) belong to it.
 */
function lastRunOf(rows: readonly StoredAudit[]): { runId: string | null; rows: readonly StoredAudit[] } {
  const runId = rows.find((r) => r.stage === 'USER_INPUT')?.runId ?? null;
  if (runId === null) return { runId, rows };
  return { runId, rows: rows.filter((r) => r.runId === null || r.runId === runId) };
}

function turnOf(turnNumber: number, rows: readonly StoredAudit[]): RecordedTurn | null {
  const input = rows.find((r) => r.stage === 'USER_INPUT');
  if (!input) return null;
  const meta = objectOr(input.payload['_meta']);
  return {
    turnNumber,
    message: str(input.payload['text']) ?? '',
    inputParams: objectOr(meta['userInputParams']),
    receivedAt: input.createdAt,
    facts: turnFactsOf(rows),
  };
}

async function llmCallsOf(db: Database, conversationId: string): Promise<RecordedLlmCall[]> {
  const rows = await db
    .select()
    .from(ceLlmCallLog)
    .where(and(eq(ceLlmCallLog.conversationId, conversationId), isNotNull(ceLlmCallLog.responseText)))
    .orderBy(asc(ceLlmCallLog.llmCallId));
  return rows.map((r) => ({
    turnNumber: r.turnNumber,
    runId: r.runId,
    kind: r.callKind,
    prompt: r.promptText ?? '',
    response: r.responseText ?? '',
  }));
}

/** The audit rows of one conversation, grouped by turn. */
async function auditsByTurn(db: Database, conversationId: string): Promise<Map<number, StoredAudit[]>> {
  return byTurn(await listAudits(db, conversationId));
}

/** How many turns a recording of the conversation would hold (turns with a USER_INPUT audit): one indexed count. */
export async function recordedTurnCount(db: Database, conversationId: string): Promise<number> {
  const [row] = await db
    .select({ turns: countDistinct(ceAudit.turnNumber).mapWith(Number) })
    .from(ceAudit)
    .where(and(eq(ceAudit.conversationId, conversationId), eq(ceAudit.stage, 'USER_INPUT')));
  return row?.turns ?? 0;
}

/** The recording of one conversation; null when it has no recorded turn. */
export async function readRecording(db: Database, conversationId: string): Promise<Recording | null> {
  const turns = await auditsByTurn(db, conversationId);
  const recording: Recording = { conversationId, turns: [], llmCalls: [], toolCalls: [], approvals: [] };
  const runOfTurn = new Map<number, string>();
  for (const [turnNumber, all] of [...turns].sort(([a], [b]) => a - b)) {
    const { runId, rows } = lastRunOf(all);
    const turn = turnOf(turnNumber, rows);
    if (!turn) continue;
    if (runId !== null) runOfTurn.set(turnNumber, runId);
    recording.turns.push(turn);
    recording.toolCalls.push(...plannerToolCalls(turnNumber, rows), ...directToolCalls(turnNumber, rows));
    recording.approvals.push(...approvalsOf(turnNumber, rows));
  }
  if (recording.turns.length === 0) return null;
  // A failed run's model answers are left out as its rows are: the retry asked again, and was answered.
  recording.llmCalls = (await llmCallsOf(db, conversationId)).filter((call) => {
    const run = call.turnNumber === null ? undefined : runOfTurn.get(call.turnNumber);
    return run === undefined || call.runId === null || call.runId === run;
  });
  return recording;
}

/** Conversations with a turn received at or after `since`, oldest first. */
export async function conversationsSince(db: Database, since: Date): Promise<string[]> {
  const rows = await db
    .select({ conversationId: ceAudit.conversationId, first: min(ceAudit.auditId) })
    .from(ceAudit)
    .where(and(eq(ceAudit.stage, 'USER_INPUT'), gte(ceAudit.createdAt, since)))
    .groupBy(ceAudit.conversationId)
    .orderBy(asc(min(ceAudit.auditId)));
  return rows.map((r) => r.conversationId);
}
