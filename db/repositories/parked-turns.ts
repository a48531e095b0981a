import { AuditStage } from '../../core/audit/payloads';
import type { ParkedTurn } from '../../core/config/parked-tools';
import { McpAudit } from '../../core/mcp/constants';
import type { Database } from '../pool';
import { runStatement, type Statement } from '../statements';

/**
 * The trail's rows that say where an uncommitted turn stands on a tool call it parked: it started (a new turn, or a
 * retry of one that never committed), parked (asked for an approval, held the call for an operator), was decided
 * (granted, rejected, expired, resolved) or failed. The last of them, when it is a park, is what the turn waits on,
 * as GET /conversation/{id} reads its pendingApproval (api/pending-approval.ts).
 */
const STANDING_STAGES = [
  AuditStage.UserInput,
  McpAudit.ApprovalRequested,
  McpAudit.ApprovalGranted,
  McpAudit.ApprovalRejected,
  McpAudit.ApprovalExpired,
  McpAudit.ToolHeld,
  McpAudit.ToolHoldResolved,
  AuditStage.EngineKnownFailure,
  AuditStage.EngineUnknownFailure,
];

const WAIT_OF_STAGE: Readonly<Record<string, ParkedTurn['waitsOn']>> = {
  [McpAudit.ApprovalRequested]: 'approval',
  [McpAudit.ToolHeld]: 'held',
};

/**
 * The stages a call parks with, written into the statement: ce_audit_parked_call_idx (migration 0032) holds just
 * these rows, and the planner uses a partial index only where it sees its predicate, which a parameter hides.
 */
const PARK_STAGES_SQL = Object.keys(WAIT_OF_STAGE)
  .map((stage) => `'${stage}'`)
  .join(', ');

/**
 * Per call parked lately (its wait ends after $2: ce_audit_parked_call_idx finds these rows by their expires_at, an
 * ISO-8601 UTC text that sorts as its time under the C collation), its conversation's last standing row past the
 * committed turns (ce_audit_turn_idx finds them): kept when that is the park itself. Reading from the parks, not
 * from every conversation, costs the calls parked within the longest wait, however long the trail. The LATERALs with
 * LIMIT keep each look-up a probe per park: the planner cannot turn them into a scan of a whole table.
 */
const PARKED_TURNS: Statement = {
  name: 'ce_parked_turns_v2',
  resendable: true,
  text: `SELECT p.conversation_id, p.stage, p.payload_json->>'tool_code' AS tool_code
           FROM ce_audit p
           CROSS JOIN LATERAL (
             SELECT turn_count FROM ce_conversation c WHERE c.conversation_id = p.conversation_id LIMIT 1) c
           CROSS JOIN LATERAL (
             SELECT a.audit_id FROM ce_audit a
              WHERE a.conversation_id = p.conversation_id AND a.turn_number > c.turn_count
                AND a.stage = ANY($1::text[])
              ORDER BY a.audit_id DESC LIMIT 1) last
          WHERE p.stage IN (${PARK_STAGES_SQL}) AND (p.payload_json->>'expires_at') COLLATE "C" > $2
            AND last.audit_id = p.audit_id
          ORDER BY p.conversation_id`,
};

interface ParkedRow {
  conversation_id: string;
  stage: string;
  tool_code: string | null;
}

/**
 * The turns parked on a tool call now, from the audit trail alone (no Temporal): each conversation whose last
 * standing row past its committed turns parks a call whose wait ends after `expiredBefore` (a wait past it has
 * ended, though no worker may have written so yet). A turn cancelled in Temporal while parked writes no row, so it
 * shows until then; an audit policy that leaves out MCP_TOOL_APPROVAL_REQUESTED or TOOL_HELD hides its turns.
 */
export async function parkedTurns(db: Database, expiredBefore: Date): Promise<ParkedTurn[]> {
  const rows = await runStatement<ParkedRow>(db, PARKED_TURNS, [STANDING_STAGES, expiredBefore.toISOString()]);
  const parked: ParkedTurn[] = [];
  for (const row of rows) {
    const waitsOn = WAIT_OF_STAGE[row.stage];
    if (!waitsOn || row.tool_code === null) continue;
    parked.push({ conversationId: row.conversation_id, toolCode: row.tool_code, waitsOn });
  }
  return parked;
}
