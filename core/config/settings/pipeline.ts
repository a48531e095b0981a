import { DEFAULT_PROMPTS } from '../../prompt/defaults';
import { defineSetting, type SettingDefinition } from '../setting';
import { DialogueActSettings } from './dialogue-act';

/** Tunables of the non-MCP pipeline steps (the Java engine's yaml flags, now rows in ce_config); DialogueAct's are in ./dialogue-act.ts. */
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
  systemPrompt: defineSetting({
    configType: 'AgentIntentResolver',
    configKey: 'SYSTEM_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.intentAgentSystem,
    description: 'System prompt of the intent agent.',
  }),
  userPrompt: defineSetting({
    configType: 'AgentIntentResolver',
    configKey: 'USER_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.intentAgentUser,
    description: 'User prompt of the intent agent.',
  }),
  resetIntentCodes: defineSetting({
    configType: 'ResetResolvedIntentStep',
    configKey: 'RESET_INTENT_CODES',
    kind: 'csv',
    default: ['RESET_SESSION'],
    description: 'Resolved intents that reset the conversation.',
  }),
};

export const CollisionSettings = {
  systemPrompt: defineSetting({
    configType: 'AgentIntentCollisionResolver',
    configKey: 'SYSTEM_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.collisionSystem,
    description: 'System prompt of the intent-collision answer.',
  }),
  userPrompt: defineSetting({
    configType: 'AgentIntentCollisionResolver',
    configKey: 'USER_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.collisionUser,
    description: 'User prompt of the intent-collision answer.',
  }),
  derivationHint: defineSetting({
    configType: 'AgentIntentCollisionResolver',
    configKey: 'DERIVATION_HINT',
    kind: 'string',
    default: '',
    description: 'Extra instruction appended to the collision prompt.',
  }),
};

export const InteractionPolicySettings = {
  executePendingOnAffirm: defineSetting({
    configType: 'InteractionPolicyStep',
    configKey: 'EXECUTE_PENDING_ON_AFFIRM',
    kind: 'boolean',
    default: true,
    description: 'AFFIRM with a pending action executes it.',
  }),
  rejectPendingOnNegate: defineSetting({
    configType: 'InteractionPolicyStep',
    configKey: 'REJECT_PENDING_ON_NEGATE',
    kind: 'boolean',
    default: true,
    description: 'NEGATE with a pending action rejects it.',
  }),
  fillPendingSlotOnNonNewRequest: defineSetting({
    configType: 'InteractionPolicyStep',
    configKey: 'FILL_PENDING_SLOT_ON_NON_NEW_REQUEST',
    kind: 'boolean',
    default: true,
    description: 'A non-new-request act with a pending slot fills it.',
  }),
  requireResolvedIntentAndState: defineSetting({
    configType: 'InteractionPolicyStep',
    configKey: 'REQUIRE_RESOLVED_INTENT_AND_STATE',
    kind: 'boolean',
    default: true,
    description: 'Without a resolved intent and state the decision is always RECLASSIFY_INTENT.',
  }),
  matrix: defineSetting({
    configType: 'InteractionPolicyStep',
    configKey: 'MATRIX',
    kind: 'json',
    default: {
      'PENDING_ACTION:AFFIRM': 'EXECUTE_PENDING_ACTION',
      'PENDING_ACTION:NEGATE': 'REJECT_PENDING_ACTION',
      'PENDING_SLOT:EDIT': 'FILL_PENDING_SLOT',
      'PENDING_SLOT:QUESTION': 'FILL_PENDING_SLOT',
      'PENDING_SLOT:NEGATE': 'FILL_PENDING_SLOT',
      'PENDING_SLOT:AFFIRM': 'FILL_PENDING_SLOT',
    },
    description: 'Decision by `<PENDING_ACTION|PENDING_SLOT|NONE>:<ACT>`.',
  }),
};

export const PendingActionSettings = {
  lifecycleEnabled: defineSetting({
    configType: 'ActionLifecycleStep',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: true,
    description: 'Track pending-action runtime status and expiry in context.',
  }),
  ttlTurns: defineSetting({
    configType: 'ActionLifecycleStep',
    configKey: 'TTL_TURNS',
    kind: 'int',
    default: 3,
    description: 'Turns after which an open pending action expires (<= 0: never).',
  }),
  ttlMinutes: defineSetting({
    configType: 'ActionLifecycleStep',
    configKey: 'TTL_MINUTES',
    kind: 'int',
    default: 30,
    description: 'Minutes after which an open pending action expires (<= 0: never).',
  }),
  disambiguationEnabled: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: true,
    description: 'Ask which action to run when several are equally eligible.',
  }),
  disambiguationMaxOptions: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'MAX_OPTIONS',
    kind: 'int',
    min: 1,
    default: 5,
    description: 'Options listed in a disambiguation question.',
  }),
  disambiguationQuestion: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'QUESTION_TEMPLATE',
    kind: 'string',
    default: DEFAULT_PROMPTS.disambiguationQuestion,
    description: 'Question template; {{options}} lists the actions.',
  }),
  disambiguationLlm: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'ENABLE_LLM',
    kind: 'boolean',
    default: false,
    description: 'Let the LLM phrase the disambiguation question.',
  }),
  disambiguationSystemPrompt: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'LLM_SYSTEM_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.disambiguationSystem,
    description: 'System prompt when ENABLE_LLM is on.',
  }),
  disambiguationUserPrompt: defineSetting({
    configType: 'DisambiguationStep',
    configKey: 'LLM_USER_PROMPT',
    kind: 'string',
    template: true,
    default: DEFAULT_PROMPTS.disambiguationUser,
    description: 'User prompt when ENABLE_LLM is on.',
  }),
};

export const GuardrailSettings = {
  enabled: defineSetting({
    configType: 'GuardrailStep',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: true,
    description: 'Sanitize input and run the sensitive-action approval gate.',
  }),
  sanitizeInput: defineSetting({
    configType: 'GuardrailStep',
    configKey: 'SANITIZE_INPUT',
    kind: 'boolean',
    default: true,
    description: 'Publish the whitespace-collapsed text as sanitized_user_text.',
  }),
  requireApproval: defineSetting({
    configType: 'GuardrailStep',
    configKey: 'REQUIRE_APPROVAL_FOR_SENSITIVE_ACTIONS',
    kind: 'boolean',
    default: false,
    description: 'Sensitive messages need approval_granted=true, else tools and pending actions are skipped.',
  }),
  sensitivePatterns: defineSetting({
    configType: 'GuardrailStep',
    configKey: 'SENSITIVE_PATTERNS',
    kind: 'regexList',
    default: [],
    description: 'JSON array of regular expressions (find, case-insensitive) marking a message sensitive.',
  }),
};

export const MemorySettings = {
  enabled: defineSetting({
    configType: 'MemoryStep',
    configKey: 'ENABLED',
    kind: 'boolean',
    default: true,
    description: 'Write a short session summary to context.memory.',
  }),
  summaryMaxChars: defineSetting({
    configType: 'MemoryStep',
    configKey: 'SUMMARY_MAX_CHARS',
    kind: 'int',
    min: 1,
    default: 1200,
    description: 'Summary length cap.',
  }),
  recentTurns: defineSetting({
    configType: 'MemoryStep',
    configKey: 'RECENT_TURNS_FOR_SUMMARY',
    kind: 'int',
    min: 0,
    default: 3,
    description: 'Recent turns quoted in the summary.',
  }),
  historyMaxTurns: defineSetting({
    configType: 'LoadOrCreateConversationStep',
    configKey: 'HISTORY_MAX_TURNS',
    kind: 'int',
    min: 0,
    default: 20,
    description: 'Committed turns loaded as conversation_history for prompts.',
  }),
};

export const pipelineSettings: readonly SettingDefinition[] = [
  ...Object.values(DialogueActSettings),
  ...Object.values(IntentSettings),
  ...Object.values(CollisionSettings),
  ...Object.values(InteractionPolicySettings),
  ...Object.values(PendingActionSettings),
  ...Object.values(GuardrailSettings),
  ...Object.values(MemorySettings),
];
