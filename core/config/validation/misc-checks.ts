import { checkUserRegex } from '../../text/regex';
import { validateSettingRows, type SettingDefinition } from '../setting';
import { CLASSIFIER_TYPES, POLICY_TYPES, oneOf } from '../vocabulary';
import { isBlank, type ValidationContext } from './context';

/** ce_intent_classifier and ce_policy: known type, non-blank pattern, compilable regex. */
export function checkMatchers(ctx: ValidationContext): void {
  for (const c of ctx.rows.classifiers) {
    if (!c.enabled) continue;
    checkMatcher(ctx, 'ce_intent_classifier', c.classifierId, c.ruleType, c.pattern, CLASSIFIER_TYPES);
  }
  for (const p of ctx.rows.policies) {
    if (!p.enabled) continue;
    checkMatcher(ctx, 'ce_policy', p.policyId, p.ruleType, p.pattern, POLICY_TYPES);
    if (isBlank(p.responseText)) ctx.sink.violation('ce_policy', p.policyId, 'response_text is blank');
  }
}

function checkMatcher(
  ctx: ValidationContext,
  table: string,
  id: number,
  ruleType: string,
  pattern: string,
  types: readonly string[]
): void {
  const type = oneOf(types, ruleType);
  if (!type) {
    ctx.sink.violation(table, id, `unknown rule_type "${ruleType}" (known: ${types.join(', ')})`);
    return;
  }
  if (isBlank(pattern)) {
    ctx.sink.violation(table, id, 'pattern is blank');
    return;
  }
  const reason = type === 'REGEX' ? checkUserRegex(pattern, { ignoreCase: true }) : null;
  if (reason !== null) ctx.sink.violation(table, id, `pattern: ${reason}`);
}

export function checkPendingActions(ctx: ValidationContext): void {
  for (const a of ctx.rows.pendingActions) {
    if (!a.enabled) continue;
    if (isBlank(a.actionKey)) ctx.sink.violation('ce_pending_action', a.pendingActionId, 'action_key is blank');
    if (isBlank(a.beanName)) ctx.sink.violation('ce_pending_action', a.pendingActionId, 'bean_name is blank');
    if (a.methodNames.split(',').every((m) => m.trim() === '')) {
      ctx.sink.violation(
        'ce_pending_action',
        a.pendingActionId,
        'method_names must list at least one method (comma-separated)'
      );
    }
  }
}

/**
 * ce_config: declared settings must parse. DialogueActStep REGEX_* patterns are checked even when
 * no setting declares them, because a broken one silently changes how every message is classified.
 */
export function checkConfigRows(ctx: ValidationContext, settings: readonly SettingDefinition[]): void {
  for (const v of validateSettingRows(ctx.rows.configs, settings)) ctx.sink.violation(v.table, v.id, v.reason);
  const declared = new Set(settings.map((s) => `${s.configType}.${s.configKey}`.toUpperCase()));
  for (const row of ctx.rows.configs) {
    if (!row.enabled || row.configValue === null) continue;
    const name = `${row.configType}.${row.configKey}`.toUpperCase();
    if (declared.has(name) || !/^DIALOGUEACTSTEP\.REGEX_/.test(name)) continue;
    const reason = checkUserRegex(row.configValue, { ignoreCase: true });
    if (reason !== null) ctx.sink.violation('ce_config', row.configId, `${row.configType}.${row.configKey}: ${reason}`);
  }
}

/** Semantic metadata must reference concepts, entities and query classes that exist. */
export function checkSemanticReferences(ctx: ValidationContext): void {
  const r = ctx.rows;
  const concepts = new Set(r.semanticConcepts.filter((c) => c.enabled).map((c) => c.conceptKey));
  const entities = new Set(r.semanticEntities.filter((e) => e.enabled).map((e) => e.entityKey));
  const classes = new Set(r.semanticQueryClasses.filter((q) => q.enabled).map((q) => q.queryClassKey));
  const missing = (table: string, id: number, what: string, key: string) =>
    ctx.sink.violation(table, id, `${what} "${key}" is not an enabled ${what.replace('_key', '')} row`);
  for (const s of r.semanticSynonyms) {
    if (s.enabled && !concepts.has(s.conceptKey))
      missing('ce_semantic_synonym', s.synonymId, 'concept_key', s.conceptKey);
  }
  for (const m of r.semanticMappings) {
    if (!m.enabled) continue;
    if (!concepts.has(m.conceptKey)) missing('ce_semantic_mapping', m.mappingId, 'concept_key', m.conceptKey);
    if (!entities.has(m.entityKey)) missing('ce_semantic_mapping', m.mappingId, 'entity_key', m.entityKey);
    if (m.queryClassKey !== null && !classes.has(m.queryClassKey)) {
      missing('ce_semantic_mapping', m.mappingId, 'query_class_key', m.queryClassKey);
    }
  }
  for (const j of r.semanticJoinPaths) {
    if (!j.enabled) continue;
    if (!entities.has(j.leftEntityKey))
      missing('ce_semantic_join_path', j.joinPathId, 'left_entity_key', j.leftEntityKey);
    if (!entities.has(j.rightEntityKey))
      missing('ce_semantic_join_path', j.joinPathId, 'right_entity_key', j.rightEntityKey);
  }
}
