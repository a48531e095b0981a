import { nearestName } from '../../text/nearest';
import { checkUserRegex } from '../../text/regex';
import { validateSettingRows, type SettingDefinition } from '../setting';
import type { ConfigRow, ConfigRows } from '../types';
import { CLASSIFIER_TYPES, POLICY_TYPES, oneOf } from '../vocabulary';
import { isBlank, repeatedKeys, type ValidationContext } from './context';
import { warnTaskInCode } from './task-checks';

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
    const methods = a.methodNames
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    if (methods.length === 0) {
      ctx.sink.violation(
        'ce_pending_action',
        a.pendingActionId,
        'method_names must list at least one method (comma-separated)'
      );
    } else if (!isBlank(a.beanName)) {
      warnTaskInCode(
        ctx,
        { table: 'ce_pending_action', id: a.pendingActionId },
        { name: a.beanName.trim(), methods, withoutIt: 'executing the action fails with PENDING_ACTION_FAILED' }
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
  const declared = new Map(settings.map((s) => [settingName(s), `${s.configType}.${s.configKey}`] as const));
  for (const row of ctx.rows.configs) {
    if (!row.enabled) continue;
    const name = settingName(row);
    if (!declared.has(name)) warnUnknownSetting(ctx, row, declared.values());
    if (row.configValue === null || declared.has(name) || !/^DIALOGUEACTSTEP\.REGEX_/.test(name)) continue;
    const reason = checkUserRegex(row.configValue, { ignoreCase: true });
    if (reason !== null) ctx.sink.violation('ce_config', row.configId, `${row.configType}.${row.configKey}: ${reason}`);
  }
  checkRepeatedSettings(ctx);
}

/** As settingRow matches: case-insensitive, untrimmed (a stray space makes a row the engine never reads). */
const settingName = (s: { configType: string; configKey: string }) => `${s.configType}.${s.configKey}`.toUpperCase();

/** The engine reads declared settings only: any other row does nothing, most often because of a typo. */
function warnUnknownSetting(ctx: ValidationContext, row: ConfigRow, known: Iterable<string>): void {
  const name = `${row.configType}.${row.configKey}`;
  const nearest = nearestName(name, known);
  const shown = name === `${row.configType.trim()}.${row.configKey.trim()}` ? name : JSON.stringify(name);
  ctx.sink.warning(
    'ce_config',
    row.configId,
    `${shown} is not a setting the engine reads, so the row has no effect` +
      (nearest === null ? ' (the settings are listed in docs/configuration.md)' : `; did you mean ${nearest}?`)
  );
}

/**
 * A setting is read from the first enabled row whose type and key match case-insensitively (settingRow), so a
 * second such row is silently ignored; the same pair twice, enabled or not, breaks the UNIQUE (config_type,
 * config_key) of ce_config on insert.
 */
function checkRepeatedSettings(ctx: ValidationContext): void {
  const exact = (r: ConfigRow) => `${r.configType}\u0000${r.configKey}`;
  const inForce = (r: ConfigRow) => (r.enabled ? settingName(r) : null);
  const reported = new Set<ConfigRow>();
  for (const [first, repeat] of [
    ...repeatedKeys(ctx.rows.configs, exact),
    ...repeatedKeys(ctx.rows.configs, inForce),
  ]) {
    if (reported.has(repeat)) continue;
    reported.add(repeat);
    ctx.sink.violation(
      'ce_config',
      repeat.configId,
      `${repeat.configType}.${repeat.configKey} repeats ce_config[${first.configId}] (${first.configType}.${first.configKey}): a setting has one row`
    );
  }
}

/**
 * Semantic metadata must reference concepts, entities and query classes that exist. A table absent from a
 * partial tree (ValidationOptions.absentTables) may hold the key: only a present one can show it missing.
 */
export function checkSemanticReferences(ctx: ValidationContext): void {
  const r = ctx.rows;
  const keys = <T extends { enabled: boolean }>(table: keyof ConfigRows, rows: T[], key: (row: T) => string) =>
    ctx.has(table) ? new Set(rows.filter((x) => x.enabled).map(key)) : null;
  const concepts = keys('semanticConcepts', r.semanticConcepts, (c) => c.conceptKey);
  const entities = keys('semanticEntities', r.semanticEntities, (e) => e.entityKey);
  const classes = keys('semanticQueryClasses', r.semanticQueryClasses, (q) => q.queryClassKey);
  const check = (known: Set<string> | null, table: string, id: number, what: string, key: string | null) => {
    if (known !== null && key !== null && !known.has(key))
      ctx.sink.violation(table, id, `${what} "${key}" is not an enabled ${what.replace('_key', '')} row`);
  };
  for (const s of r.semanticSynonyms) {
    if (s.enabled) check(concepts, 'ce_semantic_synonym', s.synonymId, 'concept_key', s.conceptKey);
  }
  for (const m of r.semanticMappings) {
    if (!m.enabled) continue;
    check(concepts, 'ce_semantic_mapping', m.mappingId, 'concept_key', m.conceptKey);
    check(entities, 'ce_semantic_mapping', m.mappingId, 'entity_key', m.entityKey);
    check(classes, 'ce_semantic_mapping', m.mappingId, 'query_class_key', m.queryClassKey);
  }
  for (const j of r.semanticJoinPaths) {
    if (!j.enabled) continue;
    check(entities, 'ce_semantic_join_path', j.joinPathId, 'left_entity_key', j.leftEntityKey);
    check(entities, 'ce_semantic_join_path', j.joinPathId, 'right_entity_key', j.rightEntityKey);
  }
}
