/** Rule phases, in the order a turn reaches them. */
export const RULE_PHASES = [
  'POST_DIALOGUE_ACT',
  'POST_CLASSIFIER_INTENT',
  'POST_AGENT_INTENT',
  'POST_SCHEMA_EXTRACTION',
  'POST_TOOL_EXECUTION',
  'PRE_AGENT_MCP',
  'POST_SEMANTIC_INTERPRET',
  'POST_AGENT_MCP',
  'PRE_RESPONSE_RESOLUTION',
] as const;
export type RulePhase = (typeof RULE_PHASES)[number];

/** Whether a (normalized) phase is one of RULE_PHASES. */
export function isRulePhase(phase: string): phase is RulePhase {
  return (RULE_PHASES as readonly string[]).includes(phase);
}

/**
 * Phases whose rules run before this turn's planner: McpPrepare clears an earlier turn's planner output only after
 * PRE_AGENT_MCP, so whatever planner output these rules see is an earlier turn's.
 */
export function runsBeforePlanner(phase: RulePhase): boolean {
  return RULE_PHASES.indexOf(phase) <= RULE_PHASES.indexOf('PRE_AGENT_MCP');
}

/** Phases whose rules run before ToolOrchestration drops the last turn's direct tool result (`toolExecution`). */
export function runsBeforeDirectTool(phase: RulePhase): boolean {
  return RULE_PHASES.indexOf(phase) < RULE_PHASES.indexOf('POST_TOOL_EXECUTION');
}

const LEGACY_PHASES: Record<string, RulePhase> = {
  PIPELINE_RULES: 'PRE_RESPONSE_RESOLUTION',
  AGENT_POST_INTENT: 'POST_AGENT_INTENT',
  CLASSIFIER_POST_INTENT: 'POST_CLASSIFIER_INTENT',
  AGENT_POST_MCP: 'POST_AGENT_MCP',
  AGENT_POST_SEMANTIC_INTERPRET: 'POST_SEMANTIC_INTERPRET',
  SEMANTIC_INTERPRET_POST: 'POST_SEMANTIC_INTERPRET',
  TOOL_POST_EXECUTION: 'POST_TOOL_EXECUTION',
};

export function isKnownPhase(raw: string | null | undefined): boolean {
  const key = (raw ?? '').trim().toUpperCase();
  return isRulePhase(key) || key in LEGACY_PHASES;
}

/**
 * Normalizes a phase name, legacy aliases included (D3: stored rows too, unlike the Java engine).
 * Blank means PRE_RESPONSE_RESOLUTION; an unknown name returns null so validation can reject it.
 */
export function normalizePhase(raw: string | null | undefined): RulePhase | null {
  const key = (raw ?? '').trim().toUpperCase();
  if (key === '') return 'PRE_RESPONSE_RESOLUTION';
  if (isRulePhase(key)) return key;
  return LEGACY_PHASES[key] ?? null;
}
