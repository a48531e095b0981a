import { AuditSettings, type AuditLevel } from '../config/settings/audit';
import { readSettingFrom, type SettingDefinition, type SettingKind } from '../config/setting';
import type { ConfigRow, ConfigSnapshot } from '../config/types';

export interface AuditRateLimit {
  enabled: boolean;
  maxEvents: number;
  windowMs: number;
  perConversation: boolean;
  perStage: boolean;
  maxTrackedBuckets: number;
}

/** Which audit rows are written and whether they carry `_meta` (core/config/settings/audit.ts). */
export interface AuditPolicy {
  enabled: boolean;
  persistMeta: boolean;
  level: AuditLevel;
  /** Upper-cased patterns; `*` is a wildcard. */
  includeStages: readonly string[];
  excludeStages: readonly string[];
  includeIntents: readonly string[];
  excludeIntents: readonly string[];
  rateLimit: AuditRateLimit;
}

/** Every row, with `_meta`: the defaults, and what a what-if replay records whatever its draft says. */
export const FULL_AUDIT_POLICY: AuditPolicy = {
  enabled: true,
  persistMeta: true,
  level: 'ALL',
  includeStages: [],
  excludeStages: [],
  includeIntents: [],
  excludeIntents: [],
  rateLimit: {
    enabled: false,
    maxEvents: 200,
    windowMs: 1000,
    perConversation: true,
    perStage: true,
    maxTrackedBuckets: 20_000,
  },
};

const normalize = (value: string | null | undefined): string => (value ?? '').trim().toUpperCase();

/** The policy these ce_config rows set; throws when one of its values does not parse (validation reports it). */
export function readAuditPolicy(configs: readonly ConfigRow[]): AuditPolicy {
  const patterns = (values: readonly string[]) => values.map(normalize).filter((p) => p !== '');
  const read = <K extends SettingKind>(def: SettingDefinition<K>) => readSettingFrom(configs, def);
  return {
    enabled: read(AuditSettings.enabled),
    persistMeta: read(AuditSettings.persistMeta),
    level: read(AuditSettings.level) as AuditLevel,
    includeStages: patterns(read(AuditSettings.includeStages)),
    excludeStages: patterns(read(AuditSettings.excludeStages)),
    includeIntents: patterns(read(AuditSettings.includeIntents)),
    excludeIntents: patterns(read(AuditSettings.excludeIntents)),
    rateLimit: {
      enabled: read(AuditSettings.rateLimitEnabled),
      maxEvents: read(AuditSettings.rateLimitMaxEvents),
      windowMs: read(AuditSettings.rateLimitWindowMs),
      perConversation: read(AuditSettings.rateLimitPerConversation),
      perStage: read(AuditSettings.rateLimitPerStage),
      maxTrackedBuckets: read(AuditSettings.rateLimitMaxTrackedBuckets),
    },
  };
}

/** Snapshots are immutable and shared per config version, so each is read once. */
const policies = new WeakMap<ConfigSnapshot, AuditPolicy>();

export function auditPolicyOf(snapshot: ConfigSnapshot): AuditPolicy {
  let policy = policies.get(snapshot);
  if (!policy) {
    policy = readAuditPolicy(snapshot.rows.configs);
    policies.set(snapshot, policy);
  }
  return policy;
}

/** `*` matches any run of characters; anything else is literal. Both sides are upper-cased already. */
export function auditPatternMatches(pattern: string, value: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.includes('*')) return pattern === value;
  const parts = pattern.split('*');
  const first = parts[0] ?? '';
  const last = parts.at(-1) ?? '';
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  // Middle parts in order, each after the previous, between the fixed head and tail.
  let at = first.length;
  const end = value.length - last.length;
  for (const part of parts.slice(1, -1)) {
    const found = value.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return true;
}

const matchesAny = (patterns: readonly string[], value: string) => patterns.some((p) => auditPatternMatches(p, value));

/** Include (when set) must match, exclude must not. */
const passes = (include: readonly string[], exclude: readonly string[], value: string) =>
  (include.length === 0 || matchesAny(include, value)) && !matchesAny(exclude, value);

function admitsLevel(level: AuditLevel, stage: string): boolean {
  switch (level) {
    case 'ALL':
      return true;
    case 'NONE':
      return false;
    case 'STANDARD':
      return stage !== 'STEP_ENTER' && stage !== 'STEP_EXIT';
    case 'ERROR_ONLY':
      return stage.includes('ERROR') || stage.includes('FAIL') || stage.includes('REJECTED');
  }
}

/**
 * Whether a row of `stage`, emitted while the session's intent was `intent`, is written: the Java
 * engine's AuditStageControl in the same order (enabled, level, stages, intents). The rate limit,
 * which counts, is applied after this by the writer.
 */
export function admitsAudit(policy: AuditPolicy, stage: string, intent: string | null | undefined): boolean {
  if (!policy.enabled) return false;
  const normalizedStage = normalize(stage);
  return (
    admitsLevel(policy.level, normalizedStage) &&
    passes(policy.includeStages, policy.excludeStages, normalizedStage) &&
    passes(policy.includeIntents, policy.excludeIntents, normalize(intent))
  );
}
