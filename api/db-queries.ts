import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { JsonObject } from '../core/json';
import { AuditStage } from '../core/audit/payloads';
import { parseAudit, unreadableAuditText } from '../core/audit/read';
import type { Database } from '../db/pool';
import { isRetired } from '../db/repositories/retired';
import type { StoredAudit } from '../db/repositories/audit';
import { listAuditsAfter, listAuditsWithin } from '../db/repositories/audit-pages';
import { ceAudit, ceConversation, ceConversationHistory } from '../db/schema';
import type { AuditCursor, AuditCursorShare } from '../core/audit';
import type { AuditRowView, ConversationQueries, ConversationView, LastTurnView } from './ports';
import { publicFailure } from './history/public-failure';
import type { TurnEndReader } from './turns/turn-ended';
import { pendingApproval } from './pending-approval';
import { temporalClock } from '../observability/temporal-clock';

const HISTORY_LIMIT = 50;
const AUDIT_PAGE = 1000;

/**
 * Read-only views of conversations and their audit trail for the API. `turnEnds` (Temporal) tells whether a turn
 * the rows show in flight has ended without a failure row; without it such a turn is taken to be running. `now`:
 * Temporal's time, which a pending approval's expiry is in (api/pending-approval.ts).
 */
export function conversationQueries(
  db: Database,
  turnEnds?: TurnEndReader,
  now: () => Date = () => new Date(temporalClock.now())
): ConversationQueries {
  const readAudits = async (cursors: readonly AuditCursor[], share: AuditCursorShare): Promise<AuditRowView[]> =>
    (await listAuditsAfter(db, cursors, { ...share, rows: Math.min(share.rows, AUDIT_PAGE) })).map(auditView);
  return {
    retired: (conversationId) => isRetired(db, conversationId),
    async conversation(conversationId: string): Promise<ConversationView | null> {
      const [row] = await db.select().from(ceConversation).where(eq(ceConversation.conversationId, conversationId));
      if (!row) return null;
      const history = await db
        .select()
        .from(ceConversationHistory)
        .where(eq(ceConversationHistory.conversationId, conversationId))
        .orderBy(desc(ceConversationHistory.turnNumber))
        .limit(HISTORY_LIMIT);
      return {
        conversationId: row.conversationId,
        status: row.status,
        intent: row.intentCode,
        state: row.stateCode,
        context: row.contextJson as JsonObject,
        inputParams: row.inputParamsJson as JsonObject,
        lastAssistant: row.lastAssistantJson,
        turnCount: row.turnCount,
        configVersion: row.configVersion,
        createdAt: row.createdAt.toISOString(),
        updatedAt: row.updatedAt.toISOString(),
        history: history.reverse().map((h) => ({
          turnNumber: h.turnNumber,
          userInput: h.userInput,
          assistantOutput: h.assistantOutput,
          createdAt: h.createdAt.toISOString(),
        })),
        ...(await turnStanding(db, conversationId, row.turnCount, turnEnds, now())),
      };
    },

    auditsAfter: readAudits,
    auditsWithin: async (conversationId, bounds) => {
      const page = await listAuditsWithin(db, conversationId, { ...bounds, limit: Math.min(bounds.limit, AUDIT_PAGE) });
      return { ...page, rows: page.rows.map(auditView) };
    },
  };
}

/**
 * The last turn that ended, and the approval a turn waits on: none once that turn has ended, though its trail still
 * shows it asking (a turn cancelled or terminated in Temporal while parked writes no row saying so; lastTurn asks
 * Temporal): deciding it would only get 409 APPROVAL_NOT_PENDING.
 */
async function turnStanding(
  db: Database,
  conversationId: string,
  turnCount: number,
  turnEnds: TurnEndReader | undefined,
  now: Date
): Promise<Pick<ConversationView, 'lastTurn' | 'pendingApproval'>> {
  const last = await lastTurn(db, conversationId, turnCount, turnEnds);
  const pending = await pendingApproval(db, conversationId, turnCount, now);
  const ended = pending && last?.status === 'FAILED' && last.turnNumber >= pending.turnNumber;
  return { lastTurn: last, pendingApproval: ended ? null : pending };
}

const isTurnFailure = (stage: string) =>
  stage === AuditStage.EngineKnownFailure || stage === AuditStage.EngineUnknownFailure;

/**
 * The last turn that ended. A turn that fails for good writes ENGINE_*_FAILURE as its last row
 * (activities/step-runtime.ts, or TurnFailure when no step did), so a turn past the committed ones whose
 * failure row is the conversation's last row (operators' rows aside) failed; a new turn (or a retry of it)
 * writes rows after it. A turn past the committed ones without that row runs, unless Temporal says it ended
 * (api/turns/turn-ended.ts): failed without its row (an older build, or a database down when it failed), it is
 * FAILED as its POST answered it; terminated or otherwise ended, FAILED and not retryable (it may be one an operator
 * chose to end). Else the last committed turn.
 */
async function lastTurn(
  db: Database,
  conversationId: string,
  turnCount: number,
  turnEnds?: TurnEndReader
): Promise<LastTurnView | null> {
  const [last] = await db
    // Without _meta: the session's context beside the row, which this read does not need.
    .select({
      stage: ceAudit.stage,
      turnNumber: ceAudit.turnNumber,
      payload: sql<JsonObject>`${ceAudit.payloadJson} - '_meta'`,
    })
    .from(ceAudit)
    // An operator's action on a failed turn is written after its failure row, and says nothing of how it ended.
    .where(and(eq(ceAudit.conversationId, conversationId), ne(ceAudit.stage, AuditStage.OperatorAction)))
    .orderBy(desc(ceAudit.auditId))
    .limit(1);
  if (last && isTurnFailure(last.stage) && last.turnNumber !== null && last.turnNumber > turnCount) {
    const shown = publicAuditPayload(last.stage, last.payload);
    const failureType = typeof shown['errorCode'] === 'string' ? shown['errorCode'] : 'TURN_FAILED';
    return { turnNumber: last.turnNumber, status: 'FAILED', failureType, retryable: shown['recoverable'] === true };
  }
  if (last && last.turnNumber !== null && last.turnNumber > turnCount && turnEnds) {
    // Temporal unreachable: the turn is taken to run, as without the reader.
    const ended = await turnEnds(conversationId, last.turnNumber).catch(() => null);
    if (ended)
      return {
        turnNumber: last.turnNumber,
        status: 'FAILED',
        failureType: ended.failureType,
        retryable: ended.retryable,
      };
  }
  return turnCount > 0 ? { turnNumber: turnCount, status: 'COMPLETED' } : null;
}

function auditView({ idempotencyKey: _key, createdAt, ...row }: StoredAudit): AuditRowView {
  return { ...row, payload: publicAuditPayload(row.stage, row.payload), createdAt: createdAt.toISOString() };
}

/**
 * A step that failed on an unexpected error (a driver's, a library's) audits its class name and
 * message for operators; the API shows it as it shows any failure (publicFailure): engine errors
 * keep their code and message, anything else only says that something internal failed.
 */
export function publicAuditPayload(stage: string, payload: JsonObject): JsonObject {
  if (isTurnFailure(stage)) return publicTurnFailure(stage, payload);
  if (stage !== AuditStage.StepError) return payload;
  const parsed = parseAudit({ stage, payload });
  if (parsed.kind === 'unreadable') {
    const shown = publicFailure({ type: null, message: '', nonRetryable: false });
    return { errorType: shown.type, errorMessage: unreadableAuditText(parsed) };
  }
  if (parsed.kind !== 'read' || parsed.stage !== AuditStage.StepError) return payload;
  const type = parsed.payload.errorType ?? null;
  const shown = publicFailure({ type, message: parsed.payload.errorMessage ?? '', nonRetryable: false });
  return shown.type === type ? payload : { ...payload, errorType: shown.type, errorMessage: shown.message };
}

/** A turn's failure row as publicAuditPayload shows a STEP_ERROR: an unexpected error's code and message say INTERNAL. */
function publicTurnFailure(stage: string, payload: JsonObject): JsonObject {
  const parsed = parseAudit({ stage, payload });
  if (parsed.kind === 'unreadable') {
    const shown = publicFailure({ type: null, message: '', nonRetryable: false });
    return { errorCode: shown.type, message: unreadableAuditText(parsed), recoverable: false };
  }
  if (parsed.kind !== 'read' || !isTurnFailure(parsed.stage)) return payload;
  const failure = parsed.payload as { errorCode: string; message?: string };
  const shown = publicFailure({ type: failure.errorCode, message: failure.message ?? '', nonRetryable: false });
  return shown.type === failure.errorCode ? payload : { ...payload, errorCode: shown.type, message: shown.message };
}
