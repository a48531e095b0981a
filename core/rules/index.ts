export {
  runRulePhase,
  MAX_RULE_PASSES,
  RULE_STAGES,
  type RulePhaseRequest,
  type RulePhaseResult,
  type RuleOrigin,
} from './engine';
export { buildFacts } from './facts';
export { candidateRules } from './select';
export { evaluateRuleMatch, type RuleMatchResult } from './match';
export { normalizePhase, RULE_PHASES, type RulePhase } from './phase';
