import { and, desc, eq, gt, inArray, sql } from 'drizzle-orm';
import { AuditStage } from '../core/audit/payloads';
import { isJsonObject, type JsonObject } from '../core/json';
import { McpAudit } from '../core/mcp/constants';
import type { Database } from '../db/pool';
import { ceAudit } from '../db/schema';
import type { PendingApprovalInConversation } from './ports';
import { decideWith } from './replies';

/**
 * The rows that say where an uncommitted turn stands on an approval: it started (a new turn, or a retry of one
 * that never committed), asked, was decided or expired, or failed.
 */
const APPROVAL_STAGES = [
  AuditStage.UserInput,
  McpAudit.ApprovalRequested,
  McpAudit.ApprovalGranted,
  McpAudit.ApprovalRejected,
  McpAudit.ApprovalExpired,
  AuditStage.EngineKnownFailure,
  AuditStage.EngineUnknownFailure,
];

/**
 * How long after its expiresAt a call the trail still shows pending (its turn did not go on: no worker fired its
 * timer) stops showing. The trail says when a call stops waiting (its _EXPIRED row, written as the turn goes on), and
 * the expiry is Temporal's time (the workflow's clock) while `now` is this host's estimate of it, which a skewed
 * clock may put minutes off before the pollers prove better (observability/temporal-clock.ts): within this margin
 * the call shows, and a decision is refused by the turn itself (409 APPROVAL_EXPIRED) once it has expired.
 */
export const PENDING_EXPIRY_MARGIN_MS = 10 * 60_000;

/**
 * D16: the approval a turn past the committed ones waits on now, from the trail: its MCP_TOOL_APPROVAL_REQUESTED row
 * (written as the turn parks) is the last of APPROVAL_STAGES, and its expiry is not PENDING_EXPIRY_MARGIN_MS past.
 * A turn parked by a worker older than that row shows none (it wrote the row only with the decision). The decision's
 * row comes with the activity after it, so for that moment a decided call still shows; deciding it again is refused
 * (409).
 */
export async function pendingApproval(
  db: Database,
  conversationId: string,
  turnCount: number,
  now: Date
): Promise<PendingApprovalInConversation | null> {
  const [last] = await db
    .select({ stage: ceAudit.stage, turnNumber: ceAudit.turnNumber, payload: sql<JsonObject>`${ceAudit.payloadJson}` })
    .from(ceAudit)
    .where(
      and(
        eq(ceAudit.conversationId, conversationId),
        gt(ceAudit.turnNumber, turnCount),
        inArray(ceAudit.stage, APPROVAL_STAGES)
      )
    )
    .orderBy(desc(ceAudit.auditId))
    .limit(1);
  if (!last || last.stage !== McpAudit.ApprovalRequested || last.turnNumber === null) return null;
  const p = last.payload;
  const expiresAt = p['expires_at'];
  const [toolCode, callIndex, args] = [p['tool_code'], p['call_index'], p['args']];
  if (typeof expiresAt !== 'string' || !(Date.parse(expiresAt) + PENDING_EXPIRY_MARGIN_MS > now.getTime())) return null;
  if (typeof toolCode !== 'string' || typeof callIndex !== 'number') return null;
  return {
    turnNumber: last.turnNumber,
    toolCode,
    args: isJsonObject(args) ? args : {},
    callIndex,
    expiresAt,
    decideWith: decideWith(conversationId, last.turnNumber, callIndex),
  };
}
