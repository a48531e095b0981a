import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ApprovalDecisionKind } from '../../core/turn/contracts';
import type { JsonObject } from '../../core/json';
import { McpAudit } from '../../core/mcp/constants';
import type { Database } from '../../db/pool';
import { ceAudit } from '../../db/schema';
import { conflict, type ApiError } from '../errors';

/** How each approval row settles its call; MCP_TOOL_APPROVAL_REQUESTED last means the call was never decided. */
const SETTLED_BY: Record<string, ApprovalDecisionKind | null> = {
  [McpAudit.ApprovalRequested]: null,
  [McpAudit.ApprovalGranted]: 'APPROVED',
  [McpAudit.ApprovalRejected]: 'REJECTED',
  [McpAudit.ApprovalExpired]: 'EXPIRED',
};

/** The call an approval row is about, and how it stood after it (null: asked, not decided). */
interface CallSettlement {
  callIndex: number;
  settled: ApprovalDecisionKind | null;
}

/**
 * How the turn's call `callIndex` (without one, the turn's last call that awaited a person) stood when the turn
 * ended, from the turn's approval rows (the latest row of the call: a retried turn's run writes them again); null
 * when no row names it.
 */
export async function approvalSettlement(
  db: Database,
  conversationId: string,
  turnNumber: number,
  callIndex: number | undefined
): Promise<CallSettlement | null> {
  const rows = await db
    .select({ stage: ceAudit.stage, payload: sql<JsonObject>`${ceAudit.payloadJson}` })
    .from(ceAudit)
    .where(
      and(
        eq(ceAudit.conversationId, conversationId),
        eq(ceAudit.turnNumber, turnNumber),
        inArray(ceAudit.stage, Object.keys(SETTLED_BY))
      )
    )
    .orderBy(desc(ceAudit.auditId));
  for (const { stage, payload } of rows) {
    const index = payload['call_index'];
    if (typeof index !== 'number' || (callIndex !== undefined && index !== callIndex)) continue;
    return { callIndex: index, settled: SETTLED_BY[stage] ?? null };
  }
  return null;
}

/**
 * The 409 for a decision on a turn that has ended (`status`, Temporal's), saying how the call was settled: the
 * codes the turn's own validator gives while it runs (workflows/turn-state.ts), or APPROVAL_NOT_PENDING for a call
 * the turn ended without deciding, or never asked.
 */
export function endedTurnRefusal(
  turnNumber: number,
  status: string,
  callIndex: number | undefined,
  call: CallSettlement | null
): ApiError {
  const how = status.toLowerCase().replace('_', ' ');
  const index = call?.callIndex ?? callIndex;
  const named = index === undefined ? 'any call' : `call #${index}`;
  if (call?.settled === 'EXPIRED') {
    const message = `The approval of ${named} expired; the turn went on without it and has ended (${how}).`;
    return conflict('APPROVAL_EXPIRED', message);
  }
  if (call?.settled) {
    const decided = call.settled === 'APPROVED' ? 'approved' : 'rejected';
    return conflict(
      'APPROVAL_ALREADY_DECIDED',
      `${named} was already ${decided}; turn ${turnNumber} has ended (${how}).`
    );
  }
  const message = call
    ? `Turn ${turnNumber} ended (${how}) while ${named} waited for an approval: it was never decided.`
    : `Turn ${turnNumber} has ended (${how}) with no approval of ${named} recorded.`;
  return conflict('APPROVAL_NOT_PENDING', message);
}
