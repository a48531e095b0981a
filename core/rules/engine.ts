import type { ConfigSnapshot, RuleRow } from '../config/types';
import { tryParseJson, type JsonObject } from '../json';
import { sessionSchemaSubset } from '../schema/subset';
import type { Session } from '../session';
import { StepScope, type PartialOutput } from '../step/scope';
import type { TaskRegistry } from '../tasks/registry';
import { RULE_ACTIONS, SHORT_CIRCUIT, shortCircuit, type ActionContext } from './actions';
import { buildFacts } from './facts';
import { evaluateRuleMatch } from './match';
import type { RulePhase } from './phase';
import { candidateRules } from './select';

/** At most this many passes; a pass repeats only while rules keep changing intent or state. */
export const MAX_RULE_PASSES = 5;

/**
 * The stages rule evaluation writes, each as `<stage> (<label>)`. PASS_LIMIT: the last pass still
 * changed intent or state, so the limit ended evaluation, not the rules (the Java engine stops there
 * silently, which left a cycle's end state unexplained).
 */
export const RULE_STAGES = {
  NO_MATCH: 'RULE_NO_MATCH',
  MATCH: 'RULE_MATCH',
  APPLIED: 'RULE_APPLIED',
  PASS_LIMIT: 'RULE_PASS_LIMIT_REACHED',
} as const;

export type RuleOrigin = 'RULES_STEP' | 'AGENT_INTENT_RESOLVER' | 'CLASSIFIER' | 'PIPELINE_STEP' | 'MCP_TOOL_STEP';

export interface RulePhaseRequest {
  session: Session;
  snapshot: ConfigSnapshot;
  phase: RulePhase;
  /** Audit label, e.g. `RulesStep`, `McpToolStep PreMcp` → stages `RULE_MATCH (RulesStep)`. */
  source: string;
  origin?: RuleOrigin;
  tasks?: TaskRegistry;
  /** ISO time of the step, for templates rendered by SHORT_CIRCUIT. */
  now?: string;
}

export interface RulePhaseResult extends PartialOutput {
  /** How many rules were applied (all passes). */
  appliedCount: number;
  passes: number;
}

interface Run {
  req: RulePhaseRequest;
  scope: StepScope;
  applied: number;
}

function markExecution(session: Session, req: RulePhaseRequest, origin: RuleOrigin): void {
  const p = session.inputParams;
  p['post_intent_rule'] = req.phase === 'POST_AGENT_INTENT' || req.phase === 'POST_CLASSIFIER_INTENT';
  p['rule_execution_source'] = req.source;
  p['rule_execution_origin'] = origin;
  p['rule_phase'] = req.phase;
  p['rule_agent_post_intent'] = req.phase === 'POST_AGENT_INTENT';
  p['rule_agent_post_mcp'] = req.phase === 'POST_AGENT_MCP';
  p['rule_tool_post_execution'] = req.phase === 'POST_TOOL_EXECUTION';
}

/** The fields every rule row starts with; the what-if replay reads `ruleId` and `action` of RULE_APPLIED rows. */
export type RuleFramePayload = { ruleId: number; action: string } & JsonObject;

function ruleFrame(run: Run, rule: RuleRow): RuleFramePayload {
  const { session } = run.scope;
  return {
    ruleId: rule.ruleId,
    action: rule.action,
    ruleType: rule.ruleType,
    ruleIntentCode: rule.intentCode,
    ruleStateCode: rule.stateCode,
    intent: session.intent,
    state: session.state,
    ruleExecutionSource: run.req.source,
    ruleExecutionOrigin: session.inputParams['rule_execution_origin'] ?? null,
    rulePhase: rule.phase,
    ruleDbPhase: rule.dbPhase,
    postIntentRule: session.inputParams['post_intent_rule'] ?? false,
  };
}

function actionContext(run: Run, rule: RuleRow): ActionContext {
  const schemaJson = () => sessionSchemaSubset(run.req.snapshot, run.scope.session);
  return {
    scope: run.scope,
    rule,
    phase: run.req.phase,
    snapshot: run.req.snapshot,
    tasks: run.req.tasks,
    schemaJson,
    facts: () => buildFacts(run.scope.session, schemaJson()),
    now: run.req.now,
  };
}

/** Evaluates one rule; returns true when it ended evaluation (SHORT_CIRCUIT answered). */
async function evaluateRule(run: Run, rule: RuleRow): Promise<boolean> {
  const { scope } = run;
  const ctx = actionContext(run, rule);
  const match = evaluateRuleMatch(rule, {
    userText: scope.session.userText,
    facts: ctx.facts(),
    context: scope.session.context,
  });
  const stage = (name: string) => `${name} (${run.req.source})`;
  if (!match.matched) {
    scope.audit(stage(RULE_STAGES.NO_MATCH), {
      ...ruleFrame(run, rule),
      type: rule.ruleType,
      pattern: rule.matchPattern,
      evaluatedState: scope.session.state,
      reason: match.reason,
    });
    return false;
  }
  scope.audit(stage(RULE_STAGES.MATCH), {
    ...ruleFrame(run, rule),
    context: scope.session.context,
    schemaJson: ctx.schemaJson(),
  });
  const actionName = rule.action.trim().toUpperCase();
  const action = RULE_ACTIONS[actionName];
  let ended = false;
  if (actionName === SHORT_CIRCUIT) ended = shortCircuit(ctx);
  else if (action) await action(ctx);
  run.applied += 1;
  scope.audit(stage(RULE_STAGES.APPLIED), {
    ...ruleFrame(run, rule),
    pattern: rule.matchPattern,
    actionValue: tryParseJson(rule.actionValue ?? '') ?? null,
    actionValueText: rule.actionValue,
    actionResolved: actionName === SHORT_CIRCUIT || action !== undefined,
  });
  return ended;
}

/**
 * Runs the rules of one phase (§3.2): candidates by scope bucket, every matching rule fires in
 * order, and passes repeat (up to 5) while intent or state changed. SHORT_CIRCUIT ends evaluation
 * and returns a stop. Pure: the caller's session is not modified.
 */
export async function runRulePhase(req: RulePhaseRequest): Promise<RulePhaseResult> {
  const run: Run = { req, scope: new StepScope(req.session), applied: 0 };
  markExecution(run.scope.session, req, req.origin ?? 'RULES_STEP');
  let passes = 0;
  const started: { intent: string; state: string }[] = [];
  while (passes < MAX_RULE_PASSES) {
    const { intent, state } = run.scope.session;
    const rules = candidateRules(req.snapshot.rows.rules, intent, state, req.phase);
    passes += 1;
    started.push({ intent, state });
    if (rules.length === 0) {
      if (passes === 1) run.scope.audit(`${RULE_STAGES.NO_MATCH} (${req.source})`, noEligibleRules(req, intent, state));
      return result(run, passes);
    }
    for (const rule of rules) {
      if (await evaluateRule(run, rule)) return result(run, passes);
    }
    if (run.scope.session.intent === intent && run.scope.session.state === state) return result(run, passes);
  }
  // The last pass moved the session: another would have run.
  run.scope.audit(`${RULE_STAGES.PASS_LIMIT} (${req.source})`, passLimitReached(run, started));
  return result(run, passes);
}

function passLimitReached(run: Run, started: { intent: string; state: string }[]): JsonObject {
  const { intent, state } = run.scope.session;
  return {
    rulePhase: run.req.phase,
    ruleExecutionSource: run.req.source,
    maxPasses: MAX_RULE_PASSES,
    passStarts: started,
    intent,
    state,
    reason: 'INTENT_OR_STATE_STILL_CHANGING',
  };
}

function noEligibleRules(req: RulePhaseRequest, intent: string, state: string): JsonObject {
  return { rulePhase: req.phase, intent, state, ruleExecutionSource: req.source, reason: 'NO_ELIGIBLE_RULES' };
}

function result(run: Run, passes: number): RulePhaseResult {
  const out = run.scope.output();
  return { ...out, appliedCount: run.applied, passes };
}
