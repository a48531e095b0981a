import { emptyConfigRows } from '../../core/config/rows';
import type {
  ClassifierRow,
  ConfigRow,
  ConfigRows,
  ConfigSnapshot,
  IntentRow,
  OutputSchemaRow,
  PendingActionRow,
  PolicyRow,
  PromptTemplateRow,
  ResponseRow,
  RuleRow,
} from '../../core/config/types';
import { normalizePhase } from '../../core/rules/phase';
import { blankSession } from '../../core/turn/session-factory';
import type { Session } from '../../core/session';
import type { TurnInput } from '../../core/turn/contracts';

/** Row builders with the table defaults, for pure tests that need a config snapshot. */
let nextId = 1000;
const id = () => (nextId += 1);

export function ruleRow(r: Partial<RuleRow> & Pick<RuleRow, 'action'>): RuleRow {
  const dbPhase = r.dbPhase ?? r.phase ?? 'PRE_RESPONSE_RESOLUTION';
  return {
    ruleId: r.ruleId ?? id(),
    phase: r.phase ? (normalizePhase(r.phase) ?? r.phase) : (normalizePhase(dbPhase) ?? dbPhase),
    dbPhase,
    intentCode: r.intentCode ?? 'ANY',
    stateCode: r.stateCode ?? 'ANY',
    ruleType: r.ruleType ?? 'REGEX',
    matchPattern: r.matchPattern ?? '.*',
    action: r.action,
    actionValue: r.actionValue ?? null,
    priority: r.priority ?? 100,
    description: r.description ?? null,
    enabled: r.enabled ?? true,
  };
}

export function intentRow(code: string, priority = 100, extra: Partial<IntentRow> = {}): IntentRow {
  return {
    intentCode: code,
    description: `${code} intent`,
    priority,
    enabled: true,
    displayName: null,
    llmHint: null,
    ...extra,
  };
}

export function classifierRow(
  r: Partial<ClassifierRow> & Pick<ClassifierRow, 'intentCode' | 'pattern'>
): ClassifierRow {
  return {
    classifierId: id(),
    stateCode: 'UNKNOWN',
    ruleType: 'REGEX',
    priority: 100,
    enabled: true,
    description: null,
    ...r,
  };
}

export function responseRow(r: Partial<ResponseRow> & Pick<ResponseRow, 'intentCode' | 'stateCode'>): ResponseRow {
  return {
    responseId: id(),
    outputFormat: 'TEXT',
    responseType: 'EXACT',
    exactText: null,
    derivationHint: null,
    jsonSchema: null,
    priority: 100,
    description: null,
    enabled: true,
    ...r,
  };
}

export function templateRow(
  r: Partial<PromptTemplateRow> & Pick<PromptTemplateRow, 'intentCode' | 'stateCode' | 'outputFormat'>
): PromptTemplateRow {
  return {
    templateId: id(),
    systemPrompt: 'system',
    userPrompt: 'user {{user_input}}',
    temperature: null,
    interactionMode: null,
    interactionContract: null,
    description: null,
    enabled: true,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...r,
  };
}

export function schemaRow(
  r: Partial<OutputSchemaRow> & Pick<OutputSchemaRow, 'intentCode' | 'stateCode' | 'jsonSchema'>
): OutputSchemaRow {
  return { schemaId: id(), schemaType: 'SCHEMA_JSON', description: null, priority: 100, enabled: true, ...r };
}

export function policyRow(r: Partial<PolicyRow> & Pick<PolicyRow, 'pattern' | 'responseText'>): PolicyRow {
  return { policyId: id(), ruleType: 'REGEX', priority: 10, description: null, enabled: true, ...r };
}

export function pendingActionRow(
  r: Partial<PendingActionRow> & Pick<PendingActionRow, 'intentCode' | 'stateCode' | 'actionKey' | 'beanName'>
): PendingActionRow {
  return { pendingActionId: id(), methodNames: 'execute', priority: 100, description: null, enabled: true, ...r };
}

export function configRow(configType: string, configKey: string, configValue: string): ConfigRow {
  return { configId: id(), configType, configKey, configValue, enabled: true };
}

export function snapshotOf(rows: Partial<ConfigRows>, version = 'test-version'): ConfigSnapshot {
  return { version, rows: { ...emptyConfigRows(), ...rows } };
}

export function turnInput(message: string, extra: Partial<TurnInput> = {}): TurnInput {
  const conversationId = extra.conversationId ?? '00000000-0000-4000-8000-000000000001';
  const turnNumber = extra.turnNumber ?? 1;
  return {
    conversationId,
    turnNumber,
    turnId: `turn-${conversationId}-${turnNumber}`,
    message,
    inputParams: {},
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: '2026-03-01T10:00:00.000Z',
    ...extra,
  };
}

export function sessionFor(message: string, extra: Partial<Session> = {}): Session {
  return { ...blankSession(turnInput(message)), configVersion: 'test-version', ...extra };
}

/** `rows` with the exact text of response `responseId` replaced: a config that differs from `rows` by one value. */
export function withResponseText(rows: ConfigRows, responseId: number, exactText: string): ConfigRows {
  return { ...rows, responses: rows.responses.map((r) => (r.responseId === responseId ? { ...r, exactText } : r)) };
}
