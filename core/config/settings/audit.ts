import { defineSetting, type SettingDefinition } from '../setting';

/** The levels of the Java engine's `convengine.audit.level`, most to least verbose. */
export const AUDIT_LEVELS = ['ALL', 'STANDARD', 'ERROR_ONLY', 'NONE'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

const stagePatterns =
  'Comma-separated, case-insensitive; `*` matches any run of characters (`MCP_*`). Empty: no constraint.';

/**
 * Which audit rows reach ce_audit, and in what form: the Java engine's `convengine.audit.*`
 * properties (AuditStageControl, DbAuditService), as ce_config rows so that an author can quiet a
 * busy deployment's trail without a deploy. A turn reads them from its pinned config version.
 */
export const AuditSettings = {
  enabled: defineSetting({
    configType: 'AuditService',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: true,
    description: 'Write audit rows at all (`convengine.audit.enabled`). False: ce_audit gets no rows of engine turns.',
  }),
  persistMeta: defineSetting({
    configType: 'AuditService',
    configKey: 'PERSIST_META',
    kind: 'boolean',
    default: true,
    description:
      'Add `_meta` (stage, intent, state, params, context) to every stored payload. False: about 60 % less audit ' +
      'CPU and bytes, but what-if replays lose a turn’s input params (docs/operations.md, "Database growth").',
  }),
  level: defineSetting({
    configType: 'AuditService',
    configKey: 'LEVEL',
    kind: 'enum',
    values: AUDIT_LEVELS,
    default: 'ALL',
    description:
      'ALL; STANDARD drops STEP_ENTER and STEP_EXIT (the trace view then shows no step durations); ERROR_ONLY keeps ' +
      'stages containing ERROR, FAIL or REJECTED; NONE keeps nothing.',
  }),
  includeStages: defineSetting({
    configType: 'AuditService',
    configKey: 'INCLUDE_STAGES',
    kind: 'csv',
    default: [],
    description: `Only stages matching one of these are written. ${stagePatterns}`,
  }),
  excludeStages: defineSetting({
    configType: 'AuditService',
    configKey: 'EXCLUDE_STAGES',
    kind: 'csv',
    default: [],
    description: `Stages matching one of these are not written. ${stagePatterns}`,
  }),
  includeIntents: defineSetting({
    configType: 'AuditService',
    configKey: 'INCLUDE_INTENTS',
    kind: 'csv',
    default: [],
    description: `Only rows emitted while the intent matches one of these are written. ${stagePatterns}`,
  }),
  excludeIntents: defineSetting({
    configType: 'AuditService',
    configKey: 'EXCLUDE_INTENTS',
    kind: 'csv',
    default: [],
    description: `Rows emitted while the intent matches one of these are not written. ${stagePatterns}`,
  }),
  rateLimitEnabled: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_ENABLED',
    kind: 'boolean',
    default: false,
    description:
      'Drop rows past RATE_LIMIT_MAX_EVENTS per RATE_LIMIT_WINDOW_MS. Counted in each worker process, like the ' +
      'Java engine counts per JVM.',
  }),
  rateLimitMaxEvents: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_MAX_EVENTS',
    kind: 'int',
    min: 1,
    default: 200,
    description: 'Rows allowed per bucket and window.',
  }),
  rateLimitWindowMs: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_WINDOW_MS',
    kind: 'int',
    min: 1,
    default: 1000,
    description: 'Length of the rate-limit window.',
  }),
  rateLimitPerConversation: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_PER_CONVERSATION',
    kind: 'boolean',
    default: true,
    description: 'One bucket per conversation (false: one for all conversations).',
  }),
  rateLimitPerStage: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_PER_STAGE',
    kind: 'boolean',
    default: true,
    description: 'One bucket per stage (false: one for all stages).',
  }),
  rateLimitMaxTrackedBuckets: defineSetting({
    configType: 'AuditService',
    configKey: 'RATE_LIMIT_MAX_TRACKED_BUCKETS',
    kind: 'int',
    min: 1000,
    default: 20_000,
    description: 'Buckets a worker tracks at most; a row that would need one more is dropped.',
  }),
};

export const auditSettings: readonly SettingDefinition[] = Object.values(AuditSettings);
