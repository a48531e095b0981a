import { bigint, boolean, integer, jsonb, numeric, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';

const id = (name: string) => bigint(name, { mode: 'number' }).primaryKey();
const enabled = () => boolean('enabled').notNull().default(true);
const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const ceConfig = pgTable(
  'ce_config',
  {
    configId: integer('config_id').primaryKey(),
    configType: text('config_type').notNull(),
    configKey: text('config_key').notNull(),
    configValue: text('config_value'),
    enabled: enabled(),
    createdAt: createdAt(),
  },
  (t) => [unique('ce_config_type_key_uq').on(t.configType, t.configKey)]
);

export const ceIntent = pgTable('ce_intent', {
  intentCode: text('intent_code').primaryKey(),
  description: text('description').notNull(),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
  displayName: text('display_name'),
  llmHint: text('llm_hint'),
  createdAt: createdAt(),
});

export const ceIntentClassifier = pgTable('ce_intent_classifier', {
  classifierId: id('classifier_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull().default('UNKNOWN'),
  ruleType: text('rule_type').notNull(),
  pattern: text('pattern').notNull(),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
  description: text('description'),
});

export const ceOutputSchema = pgTable('ce_output_schema', {
  schemaId: id('schema_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  schemaType: text('schema_type').notNull().default('SCHEMA_JSON'),
  jsonSchema: jsonb('json_schema').notNull(),
  description: text('description'),
  priority: integer('priority').notNull().default(100),
  enabled: enabled(),
});

export const cePromptTemplate = pgTable('ce_prompt_template', {
  templateId: id('template_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  outputFormat: text('output_format').notNull(),
  systemPrompt: text('system_prompt'),
  userPrompt: text('user_prompt'),
  temperature: numeric('temperature', { precision: 3, scale: 2 }),
  interactionMode: text('interaction_mode'),
  interactionContract: jsonb('interaction_contract'),
  description: text('description'),
  enabled: enabled(),
  createdAt: createdAt(),
});

export const ceResponse = pgTable('ce_response', {
  responseId: id('response_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  outputFormat: text('output_format').notNull().default('TEXT'),
  responseType: text('response_type').notNull().default('EXACT'),
  exactText: text('exact_text'),
  derivationHint: text('derivation_hint'),
  jsonSchema: jsonb('json_schema'),
  priority: integer('priority').notNull().default(100),
  description: text('description'),
  enabled: enabled(),
});

export const ceRule = pgTable('ce_rule', {
  ruleId: id('rule_id'),
  phase: text('phase').notNull().default('PRE_RESPONSE_RESOLUTION'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  ruleType: text('rule_type').notNull(),
  matchPattern: text('match_pattern').notNull(),
  action: text('action').notNull(),
  actionValue: text('action_value'),
  priority: integer('priority').notNull().default(100),
  description: text('description'),
  enabled: enabled(),
});

export const cePolicy = pgTable('ce_policy', {
  policyId: id('policy_id'),
  ruleType: text('rule_type').notNull(),
  pattern: text('pattern').notNull(),
  responseText: text('response_text').notNull(),
  priority: integer('priority').notNull().default(10),
  description: text('description'),
  enabled: enabled(),
});

export const cePendingAction = pgTable('ce_pending_action', {
  pendingActionId: id('pending_action_id'),
  intentCode: text('intent_code').notNull(),
  stateCode: text('state_code').notNull(),
  actionKey: text('action_key').notNull(),
  beanName: text('bean_name').notNull(),
  methodNames: text('method_names').notNull(),
  priority: integer('priority').notNull().default(100),
  description: text('description'),
  enabled: enabled(),
});
