import { audit, type AuditRecord } from '../audit';
import type { Session } from '../session';
import { McpAudit, McpOutcome, McpStatus } from './constants';
import { writeLifecycle } from './context';
import { markClarificationResolved, semanticClarificationPending } from './semantic-context';

/**
 * The MCP skip checks (§6.1 step 2), first hit wins. Run after PRE_AGENT_MCP rules, on the
 * activity's private session copy. A skip writes `context.mcp.lifecycle` (except the
 * pending-clarification skip, which only audits), and the planner does not run.
 */
export interface SkipResult {
  /** Lifecycle status written, or PENDING_CLARIFICATION; null when the planner should run. */
  skipReason: string | null;
  audits: AuditRecord[];
  /** The user answered a semantic clarification question; the planner resumes the chain. */
  clarificationReply: boolean;
}

const GREETING = /^(hi|hello|hey|greetings|good morning|good afternoon|good evening)\b/;
const CLARIFICATION_REPLY_ACTS = new Set(['ANSWER', 'EDIT', 'AFFIRM', 'NEW_REQUEST']);

function isTrue(value: unknown): boolean {
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}

function dialogueAct(session: Session): string | null {
  const act = session.inputParams['dialogue_act'];
  return typeof act === 'string' && act.trim() !== '' ? act.trim().toUpperCase() : null;
}

function skipWith(session: Session, status: string, outcome: string, errorMessage: string | null = null): void {
  writeLifecycle(session, { status, outcome, finished: true, errorMessage });
}

/** A reply to a semantic clarification question resumes the chain instead of being skipped. */
function resumeClarification(session: Session, act: string | null): boolean {
  if (!act || !CLARIFICATION_REPLY_ACTS.has(act) || !semanticClarificationPending(session)) return false;
  session.pendingClarification = null;
  delete session.context['pending_clarification'];
  session.inputParams['dialogue_act'] = 'ANSWER';
  markClarificationResolved(session);
  return true;
}

function actSkips(act: string | null, clarificationReply: boolean, routingDecision: unknown): boolean {
  if (act === 'NEGATE' || act === 'RESET') return true;
  if (act === 'EDIT') return !clarificationReply;
  if (act === 'AFFIRM') return String(routingDecision ?? '').toUpperCase() !== 'PROCEED_CONFIRMED';
  return false;
}

export function checkMcpSkips(session: Session, toolsInScope: number): SkipResult {
  const none = (reason: string, audits: AuditRecord[] = []): SkipResult => ({
    skipReason: reason,
    audits,
    clarificationReply: false,
  });
  const params = session.inputParams;
  if (isTrue(params['skip_tool_execution']) || isTrue(params['guardrail_blocked'])) {
    skipWith(session, McpStatus.SkippedByGuardrail, McpOutcome.Skipped);
    return none(McpStatus.SkippedByGuardrail);
  }
  if (session.resolvedSchema && !session.schemaComplete) {
    skipWith(session, McpStatus.SkippedSchemaIncomplete, McpOutcome.Skipped, 'SCHEMA_INCOMPLETE');
    const payload = {
      intent: session.intent,
      state: session.state,
      missing_fields: session.missingRequiredFields,
      schema_complete: false,
    };
    return none(McpStatus.SkippedSchemaIncomplete, [audit(McpAudit.SkippedSchemaIncomplete, payload)]);
  }
  const clarificationReply = resumeClarification(session, dialogueAct(session));
  if (actSkips(clarificationReply ? 'ANSWER' : dialogueAct(session), clarificationReply, params['routing_decision'])) {
    skipWith(session, McpStatus.SkippedDialogueAct, McpOutcome.Skipped);
    return none(McpStatus.SkippedDialogueAct);
  }
  if (GREETING.test(session.userText.trim().toLowerCase())) {
    skipWith(session, McpStatus.SkippedGreeting, McpOutcome.Skipped);
    return none(McpStatus.SkippedGreeting);
  }
  if (session.pendingClarification) {
    return none('PENDING_CLARIFICATION', [
      audit(McpAudit.SkippedPendingClarification, { intent: session.intent, state: session.state }),
    ]);
  }
  if (toolsInScope === 0) {
    skipWith(session, McpStatus.NoToolsForScope, McpOutcome.NoTools);
    return none(McpStatus.NoToolsForScope, [
      audit(McpAudit.NoToolsAvailable, { intent: session.intent, state: session.state }),
    ]);
  }
  return { skipReason: null, audits: [], clarificationReply };
}
