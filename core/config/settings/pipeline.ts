import { defineSetting, type SettingDefinition } from '../setting';

/** Tunables of the non-MCP pipeline steps (the Java engine's yaml flags, now rows in ce_config). */
export const DialogueActSettings = {
  resolveMode: defineSetting({
    configType: 'DialogueActStep',
    configKey: 'RESOLUTE_MODE',
    kind: 'enum',
    values: ['REGEX_ONLY', 'REGEX_THEN_LLM', 'LLM_ONLY'],
    default: 'REGEX_THEN_LLM',
    description: 'How dialogue acts are classified.',
  }),
  llmThreshold: defineSetting({
    configType: 'DialogueActStep',
    configKey: 'LLM_THRESHOLD',
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.9,
    description: 'Regex confidence at or above which the LLM is not asked.',
  }),
};

export const IntentSettings = {
  minConfidence: defineSetting({
    configType: 'AgentIntentResolver',
    configKey: 'MIN_CONFIDENCE',
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.55,
    description: 'Agent answers below this confidence are rejected.',
  }),
  collisionGapThreshold: defineSetting({
    configType: 'AgentIntentResolver',
    configKey: 'COLLISION_GAP_THRESHOLD',
    kind: 'number',
    min: 0,
    max: 1,
    default: 0.1,
    description: 'Top-two score gap at or below which the agent asks which intent was meant.',
  }),
};

export const pipelineSettings: readonly SettingDefinition[] = [
  ...Object.values(DialogueActSettings),
  ...Object.values(IntentSettings),
];
