import { and, asc, countDistinct, eq, gte, isNotNull, min } from 'drizzle-orm';
import type { JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import { AuditStage } from '../../core/audit/payloads';
import { parseAudit, readStageRows, type ReadBackPayloads } from '../../core/audit/read';
import { turnFactsOf, type TurnFacts } from '../../core/whatif/facts';
import type { Database } from '../pool';
import { listAudits, type StoredAudit } from '../repositories/audit';
import { ceAudit, ceLlmCallLog } from '../schema';
import { holdDecisionsOf, toolCallsOf, type RecordedHoldDecision, type RecordedToolCall } from './tool-calls';

export type { RecordedHoldDecision, RecordedToolCall, RecordedToolOutcome } from './tool-calls';

/**
 * Everything a what-if replay feeds back for one recorded conversation, read from what the engine
 * already records: the turns' messages (USER_INPUT audits), every model answer (ce_llm_call_log:
 * the prompt as sent, `system\n\nuser`, and the answer), every tool result (MCP_TOOL_CALL with its
 * MCP_TOOL_RESULT, or the direct path's TOOL_ORCHESTRATION_REQUEST/RESULT), approval decisions, operators'
 * decisions on held tool calls (TOOL_HOLD_RESOLVED), and per turn the facts the replay is compared with.
 */
export interface RecordedTurn {
  turnNumber: number;
  message: string;
  inputParams: JsonObject;
  /** When the recorded turn ran (its USER_INPUT row): the replay's clock for this turn. */
  receivedAt: Date;
  facts: TurnFacts;
  /**
   * Messages of earlier runs of this turn number that said something else and failed: a turn that fails commits
   * nothing, so the next message took its number. They are not replayed (nothing of them was committed, so no later
   * turn started from them, and a failure has no recorded outcome to compare), and the report says so.
   */
  superseded: string[];
}

export interface RecordedLlmCall {
  turnNumber: number | null;
  /** The Temporal run that made the call; null in process and before migration 0016. */
  runId: string | null;
  kind: string;
  prompt: string;
  response: string;
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
  holds: RecordedHoldDecision[];
}

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

const DECISIONS = {
  [McpAudit.ApprovalGranted]: 'APPROVED',
  [McpAudit.ApprovalRejected]: 'REJECTED',
  [McpAudit.ApprovalExpired]: 'EXPIRED',
} as const satisfies Record<string, RecordedApproval['decision']>;

function approvalsOf(turnNumber: number, rows: readonly StoredAudit[]): RecordedApproval[] {
  return rows.flatMap((row) => {
    const parsed = parseAudit(row);
    if (parsed.kind !== 'read' || !(parsed.stage in DECISIONS)) return [];
    const payload = parsed.payload as ReadBackPayloads[keyof typeof DECISIONS];
    return [
      {
        turnNumber,
        toolCode: payload.tool_code,
        callIndex: payload.call_index ?? null,
        decision: DECISIONS[parsed.stage as keyof typeof DECISIONS],
        reason: payload.reason ?? null,
        decidedBy: payload.decided_by ?? null,
      },
    ];
  });
}

/**
 * The rows of the run a turn ended with. An operator's retry of a failed turn is a new run of the same
 * workflow that writes rows of its own after the failed run's, which stay (activities/runtime/audit-writer.ts).
 * The run that wrote the last USER_INPUT row is the turn's; rows of no run (an operator's action, the
 * in-process runner, older rows) belong to it.
 */
function lastRunOf(rows: readonly StoredAudit[]): { runId: string | null; rows: readonly StoredAudit[] } {
  const inputs = rows.filter((r) => r.stage === 'USER_INPUT');
  const runId = inputs.at(-1)?.runId ?? null;
  if (runId === null) return { runId, rows };
  return { runId, rows: rows.filter((r) => r.runId === null || r.runId === runId) };
}

/** What earlier runs of the turn said that its last run did not: failed messages a later message superseded. */
function supersededOf(all: readonly StoredAudit[], runId: string | null, message: string): string[] {
  const earlier = readStageRows(all, AuditStage.UserInput).filter((input) => input.row.runId !== runId);
  return [...new Set(earlier.map((input) => input.payload.text).filter((text) => text !== message))];
}

/** The turn as its last run recorded it (`last`, from lastRunOf), with what earlier runs said that it did not. */
function turnOf(
  turnNumber: number,
  all: readonly StoredAudit[],
  { runId, rows }: ReturnType<typeof lastRunOf>
): RecordedTurn | null {
  const input = readStageRows(rows, AuditStage.UserInput)[0];
  if (!input) return null;
  const message = input.payload.text;
  return {
    turnNumber,
    message,
    inputParams: input.meta?.userInputParams ?? {},
    receivedAt: input.row.createdAt,
    facts: turnFactsOf(rows),
    superseded: runId === null ? [] : supersededOf(all, runId, message),
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
  const recording: Recording = { conversationId, turns: [], llmCalls: [], toolCalls: [], approvals: [], holds: [] };
  const runOfTurn = new Map<number, string>();
  for (const [turnNumber, all] of [...turns].sort(([a], [b]) => a - b)) {
    const last = lastRunOf(all);
    const { runId, rows } = last;
    const turn = turnOf(turnNumber, all, last);
    if (!turn) continue;
    if (runId !== null) runOfTurn.set(turnNumber, runId);
    recording.turns.push(turn);
    recording.toolCalls.push(...toolCallsOf(turnNumber, rows));
    recording.approvals.push(...approvalsOf(turnNumber, rows));
    recording.holds.push(...holdDecisionsOf(turnNumber, rows));
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
