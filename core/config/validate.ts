import type { SettingDefinition } from './setting';
import { allSettings } from './settings';
import { EngineError, ErrorType } from '../errors';
import { formatViolation, type ConfigRows, type ConfigViolation } from './types';
import { checkAuditPolicy } from './validation/audit-checks';
import { buildValidationContext, type ValidationContext, type ValidationOptions } from './validation/context';
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
import { ruleCheckSteps } from './validation/rule-checks';
import { ruleCycleSteps } from './validation/rule-cycles';
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

type Vocabulary = ReturnType<typeof buildTemplateVocabulary>;
/** A check that takes long on a large config returns its steps, to be run one at a time (ruleCycleSteps). */
type Check = (
  ctx: ValidationContext,
  vocab: Vocabulary,
  settings: readonly SettingDefinition[]
) => void | Iterable<void>;

/** Every check, in the order findings are reported. */
const CHECKS: readonly Check[] = [
  (ctx) => checkScopes(ctx),
  (ctx, vocab) => ruleCheckSteps(ctx, vocab),
  (ctx) => ruleCycleSteps(ctx),
  (ctx) => checkMatchers(ctx),
  (ctx) => checkPendingActions(ctx),
  (ctx, vocab) => checkPromptTemplates(ctx, vocab),
  (ctx, vocab) => checkResponses(ctx, vocab),
  (ctx, vocab) => checkPlanners(ctx, vocab),
  (ctx) => checkSchemas(ctx),
  (ctx) => checkTools(ctx),
  (ctx, vocab) => checkVerboses(ctx, vocab),
  (ctx, _vocab, settings) => checkConfigRows(ctx, settings),
  (ctx, vocab, settings) => checkSettingTemplates(ctx, vocab, settings),
  (ctx) => checkAuditPolicy(ctx),
  (ctx) => checkSemanticReferences(ctx),
  (ctx) => checkReachableResponses(ctx),
  (ctx) => checkPlannerAnswerPrompts(ctx),
  (ctx) => checkEarlyShortCircuits(ctx),
  (ctx) => checkPromptTextSizes(ctx),
  (ctx) => checkUnsafeText(ctx),
];

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
  const run = startValidation(rows, options);
  for (const check of CHECKS) for (const step of check(run.ctx, run.vocab, settings) ?? []) void step;
  return run.result();
}

/**
 * validateConfig, awaiting `pause` between its checks and between the steps of a check that takes long on a large
 * config (the rule-loop check, seconds at 3,000 rules): a process that serves requests while it validates (a store
 * reloading) passes one that yields to its event loop, so no request waits for the whole validation, only for one
 * check or step. The same findings as validateConfig, in the same order.
 */
export async function validateConfigPausing(
  rows: ConfigRows,
  pause: () => Promise<void>,
  settings: readonly SettingDefinition[] = allSettings,
  options: ValidationOptions = {}
): Promise<ConfigValidationResult> {
  await pause();
  const run = startValidation(rows, options);
  for (const check of CHECKS) {
    await pause();
    for (const step of check(run.ctx, run.vocab, settings) ?? []) {
      void step;
      await pause();
    }
  }
  return run.result();
}

function startValidation(rows: ConfigRows, options: ValidationOptions) {
  // Screened first: every check may walk a JSON value recursively.
  const ctx = buildValidationContext(screenConfigRows(rows), options);
  const overDeep = checkOverDeepJson(ctx);
  const vocab = buildTemplateVocabulary(ctx);
  const result = (): ConfigValidationResult => ({
    violations: withoutOverDeepEchoes(ctx.sink.violations, overDeep),
    warnings: ctx.sink.warnings,
  });
  return { ctx, vocab, result };
}

/** The typed error for refused config: its message lists every violation, one per line. */
export function configInvalidError(violations: readonly ConfigViolation[], context = 'config is invalid'): EngineError {
  const lines = violations.map(formatViolation);
  return new EngineError(ErrorType.ConfigInvalid, `${context} (${lines.length} violation(s)):\n${lines.join('\n')}`, {
    details: { violations: [...violations] },
  });
}
