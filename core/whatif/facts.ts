import { AuditStage } from '../audit/payloads';
import {
  parseAudit,
  unreadableAuditText,
  type ParsedAudit,
  type ReadAuditMeta,
  type ReadBackPayloads,
} from '../audit/read';
import { canonicalJson } from '../json';
import { McpAudit } from '../mcp/constants';
import { operatorFailedMessage } from '../mcp/hold';
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
  /**
   * Why the turn did not complete (its last STEP_ERROR, or an operator's `fail` of a held call), null when it
   * did; intent and state are then where it stopped.
   */
  error: string | null;
}

/** One ce_audit row as the fact reader needs it. */
export interface FactAuditRow {
  stage: string;
  /** As stored: parseAudit reads it, whatever it holds. */
  payload: unknown;
}

/** The compared fields, in report order. */
export const FACT_FIELDS = ['intent', 'state', 'rulesFired', 'toolsCalled', 'response', 'approvals', 'error'] as const;
export type FactField = (typeof FACT_FIELDS)[number];

/** `RULE_APPLIED (RulesStep)` → `rule 12 SET_STATE (RulesStep)`. */
function ruleFired(stage: string, payload: ReadBackPayloads[typeof AuditStage.RuleApplied]): string {
  const source = /\((.*)\)$/.exec(stage)?.[1] ?? '';
  return `rule ${payload.ruleId} ${payload.action ?? ''}${source ? ` (${source})` : ''}`;
}

function responseOf(payload: ReadBackPayloads[typeof AuditStage.EngineReturn]): string | null {
  const reply = payload.final_result?.payload;
  return reply === undefined ? null : assistantText(reply);
}

/** A turn of which nothing is known yet (fresh arrays each time). */
export function emptyTurnFacts(): TurnFacts {
  return { intent: null, state: null, rulesFired: [], toolsCalled: [], response: null, approvals: [], error: null };
}

/** Adds what one readable row tells; true when it is the turn's ENGINE_RETURN. */
function addFact(facts: TurnFacts, row: FactAuditRow, parsed: Extract<ParsedAudit, { kind: 'read' }>): boolean {
  switch (parsed.stage) {
    case AuditStage.RuleApplied:
      facts.rulesFired.push(ruleFired(row.stage, parsed.payload));
      return false;
    case McpAudit.ToolCall:
    case McpAudit.OrchestrationRequest:
      facts.toolsCalled.push(`${parsed.payload.tool_code} ${canonicalJson(parsed.payload.args ?? {})}`);
      return false;
    case McpAudit.ApprovalGranted:
    case McpAudit.ApprovalRejected:
    case McpAudit.ApprovalExpired:
      facts.approvals.push(`${parsed.payload.tool_code} ${parsed.payload.decision ?? parsed.stage}`);
      return false;
    case AuditStage.StepError:
      facts.error = `${parsed.payload.step}: ${parsed.payload.errorMessage ?? ''}`;
      return false;
    case McpAudit.ToolHoldResolved:
      // An operator's `fail` ends the turn with no step error of its own: the error says who ended it, and why.
      if (parsed.payload.action === 'fail') {
        facts.error = `McpToolHold: ${operatorFailedMessage(parsed.payload.tool_code, parsed.payload.reason)}`;
      }
      return false;
    case AuditStage.EngineReturn:
      facts.intent = parsed.payload.intent;
      facts.state = parsed.payload.state;
      facts.response = responseOf(parsed.payload);
      return true;
    default:
      return false;
  }
}

/**
 * The facts of one turn from its audit rows, oldest first. A row that cannot be read is a fact of its
 * own: the turn's error says so, and a replay of a sound recording differs from it there.
 */
export function turnFactsOf(rows: readonly FactAuditRow[]): TurnFacts {
  const facts = emptyTurnFacts();
  let completed = false;
  let unreadable: string | null = null;
  let last: ReadAuditMeta | null = null;
  for (const row of rows) {
    const parsed = parseAudit(row);
    if (parsed.kind === 'unreadable') unreadable ??= unreadableAuditText(parsed);
    else {
      last = parsed.meta;
      if (parsed.kind === 'read' && addFact(facts, row, parsed)) completed = true;
    }
  }
  if (completed) facts.error = null;
  else {
    // A turn that failed still says where it got to: the intent and state of its last row.
    facts.intent = last?.intent ?? null;
    facts.state = last?.state ?? null;
  }
  if (unreadable !== null) facts.error = unreadable;
  return facts;
}
