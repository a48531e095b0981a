import type { SettingDefinition } from './setting';
import { allSettings } from './settings';
import { EngineError, ErrorType } from '../errors';
import { formatViolation, type ConfigRows, type ConfigViolation } from './types';
import { checkAuditPolicy } from './validation/audit-checks';
import { buildValidationContext, type ValidationOptions } from './validation/context';
import { checkConfigRows, checkMatchers, checkPendingActions, checkSemanticReferences } from './validation/misc-checks';
import {
  buildTemplateVocabulary,
  checkPlanners,
  checkPromptTemplates,
  checkSettingTemplates,
} from './validation/prompt-checks';
import { checkEarlyShortCircuits, checkPlannerAnswerPrompts } from './validation/planner-answer-checks';
import { checkResponses } from './validation/response-checks';
import { checkReachableResponses } from './validation/reach-checks';
import { checkRules } from './validation/rule-checks';
import { checkRuleCycles } from './validation/rule-cycles';
import { checkSchemas } from './validation/schema-checks';
import { checkScopes } from './validation/scope-checks';
import {
  checkOverDeepJson,
  checkPromptTextSizes,
  checkUnsafeText,
  withoutOverDeepEchoes,
} from './validation/text-checks';
import { screenConfigRows } from './json-depth';
import { checkTools } from './validation/tool-checks';
import { checkVerboses } from './validation/verbose-checks';

export interface ConfigValidationResult {
  /** The config is refused while any of these exist (D12, P5). */
  violations: ConfigViolation[];
  /** Accepted, but worth an author's attention (e.g. a row scoped to a disabled intent). */
  warnings: ConfigViolation[];
}

/**
 * Validates a full set of config rows (or, with `options.absentTables`, what can be judged of a partial one),
 * pure and deterministic. Every finding names `table[id]` with a human reason; all findings are reported at
 * once, never just the first. JSON nested deeper than MAX_CONFIG_JSON_DEPTH is one violation of its own.
 */
export function validateConfig(
  rows: ConfigRows,
  settings: readonly SettingDefinition[] = allSettings,
  options: ValidationOptions = {}
): ConfigValidationResult {
  // Screened first: every check below may walk a JSON value recursively.
  const ctx = buildValidationContext(screenConfigRows(rows), options);
  const overDeep = checkOverDeepJson(ctx);
  const vocab = buildTemplateVocabulary(ctx);
  checkScopes(ctx);
  checkRules(ctx, vocab);
  checkRuleCycles(ctx);
  checkMatchers(ctx);
  checkPendingActions(ctx);
  checkPromptTemplates(ctx, vocab);
  checkResponses(ctx, vocab);
  checkPlanners(ctx, vocab);
  checkSchemas(ctx);
  checkTools(ctx);
  checkVerboses(ctx, vocab);
  checkConfigRows(ctx, settings);
  checkSettingTemplates(ctx, vocab, settings);
  checkAuditPolicy(ctx);
  checkSemanticReferences(ctx);
  checkReachableResponses(ctx);
  checkPlannerAnswerPrompts(ctx);
  checkEarlyShortCircuits(ctx);
  checkPromptTextSizes(ctx);
  checkUnsafeText(ctx);
  return { violations: withoutOverDeepEchoes(ctx.sink.violations, overDeep), warnings: ctx.sink.warnings };
}

/** The typed error for refused config: its message lists every violation, one per line. */
export function configInvalidError(violations: readonly ConfigViolation[], context = 'config is invalid'): EngineError {
  const lines = violations.map(formatViolation);
  return new EngineError(ErrorType.ConfigInvalid, `${context} (${lines.length} violation(s)):\n${lines.join('\n')}`, {
    details: { violations: [...violations] },
  });
}
