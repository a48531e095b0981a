import { canonicalJson, type Json, type JsonObject } from '../json';
import { McpAudit } from '../mcp/constants';
import { assistantText } from '../prompt/vars';

/**
 * What a what-if replay compares for one turn, read the same way from the recorded conversation's
 * audit rows and from the replay's: the turn's final intent and state (ENGINE_RETURN), the rules
 * that fired, the tools called, the response text and the approval decisions.
 */
export interface TurnFacts {
  intent: string | null;
  state: string | null;
  rulesFired: string[];
  toolsCalled: string[];
  response: string | null;
  approvals: string[];
  /** Why the turn did not complete (its last STEP_ERROR), null when it did; intent and state are then where it stopped. */
  error: string | null;
}

/** One ce_audit row as the fact reader needs it. */
export interface FactAuditRow {
  stage: string;
  payload: JsonObject;
}

/** The compared fields, in report order. */
export const FACT_FIELDS = ['intent', 'state', 'rulesFired', 'toolsCalled', 'response', 'approvals', 'error'] as const;
export type FactField = (typeof FACT_FIELDS)[number];

const str = (value: Json | undefined): string | null => (typeof value === 'string' ? value : null);

const APPROVAL_DECISIONS = new Set<string>([
  McpAudit.ApprovalGranted,
  McpAudit.ApprovalRejected,
  McpAudit.ApprovalExpired,
]);

/** `RULE_APPLIED (RulesStep)` → `rule 12 SET_STATE (RulesStep)`. */
function ruleFired(row: FactAuditRow): string {
  const source = /\((.*)\)$/.exec(row.stage)?.[1] ?? '';
  const id = row.payload['ruleId'];
  const action = str(row.payload['action']) ?? '';
  return `rule ${typeof id === 'number' ? id : String(id)} ${action}${source ? ` (${source})` : ''}`;
}

function toolCalled(row: FactAuditRow): string {
  const args = row.payload['args'];
  return `${str(row.payload['tool_code']) ?? '?'} ${canonicalJson(args ?? {})}`;
}

function responseOf(payload: JsonObject): string | null {
  const result = payload['final_result'];
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return null;
  const reply = result['payload'];
  return reply === undefined ? null : assistantText(reply);
}

/** A turn of which nothing is known yet (fresh arrays each time). */
export function emptyTurnFacts(): TurnFacts {
  return { intent: null, state: null, rulesFired: [], toolsCalled: [], response: null, approvals: [], error: null };
}

/** The facts of one turn from its audit rows, oldest first. */
export function turnFactsOf(rows: readonly FactAuditRow[]): TurnFacts {
  const facts = emptyTurnFacts();
  let completed = false;
  for (const row of rows) {
    const { stage, payload } = row;
    if (stage.startsWith('RULE_APPLIED')) facts.rulesFired.push(ruleFired(row));
    else if (stage === McpAudit.ToolCall || stage === McpAudit.OrchestrationRequest)
      facts.toolsCalled.push(toolCalled(row));
    else if (APPROVAL_DECISIONS.has(stage))
      facts.approvals.push(`${str(payload['tool_code']) ?? '?'} ${str(payload['decision']) ?? stage}`);
    else if (stage === 'STEP_ERROR')
      facts.error = `${str(payload['step']) ?? '?'}: ${str(payload['errorMessage']) ?? ''}`;
    else if (stage === 'ENGINE_RETURN') {
      completed = true;
      facts.intent = str(payload['intent']);
      facts.state = str(payload['state']);
      facts.response = responseOf(payload);
    }
  }
  if (completed) facts.error = null;
  else {
    // A turn that failed still says where it got to: the intent and state of its last row.
    const meta = rows.at(-1)?.payload['_meta'];
    const at = meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? meta : {};
    facts.intent = str(at['intent']);
    facts.state = str(at['state']);
  }
  return facts;
}
