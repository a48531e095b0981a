import { isJsonObject, type Json, type JsonObject } from '../json';
import { McpAudit } from '../mcp/constants';
import type { ToolHoldResolvedPayload } from '../mcp/hold';
import type { ApprovalDecisionPayload } from '../mcp/outcomes';
import { HELD_TOOL_ACTIONS } from '../turn/operator-decision';
import type { ToolCallPayload, ToolResultPayload } from '../mcp/plan-apply';
import type { RuleFramePayload } from '../rules/engine';
import {
  AuditStage,
  type AssistantOutputPayload,
  type EngineFailurePayload,
  type EngineReturnPayload,
  type OrchestrationErrorPayload,
  type OrchestrationRequestPayload,
  type OrchestrationResultPayload,
  type StepErrorPayload,
  type StepExitPayload,
  type StepFramePayload,
  type StoredAuditMeta,
  type UserInputPayload,
} from './payloads';

/**
 * What a reader may rely on in a stored row: the fields `K` every release wrote; the rest as written
 * now when present (rows of older releases may lack them), of their declared type when they are there.
 */
export type ReadBack<P, K extends keyof P> = Pick<P, K> & Partial<Omit<P, K>>;

/** The payload each read-back stage is read as. */
export interface ReadBackPayloads {
  [AuditStage.StepEnter]: ReadBack<StepFramePayload, 'step'>;
  [AuditStage.StepExit]: ReadBack<StepExitPayload, 'step'>;
  [AuditStage.StepError]: ReadBack<StepErrorPayload, 'step'>;
  [AuditStage.EngineKnownFailure]: ReadBack<EngineFailurePayload, 'errorCode'>;
  [AuditStage.EngineUnknownFailure]: ReadBack<EngineFailurePayload, 'errorCode'>;
  [AuditStage.UserInput]: UserInputPayload;
  [AuditStage.AssistantOutput]: ReadBack<AssistantOutputPayload, 'output'>;
  [AuditStage.EngineReturn]: ReadBack<EngineReturnPayload, 'intent' | 'state'>;
  [AuditStage.RuleApplied]: ReadBack<RuleFramePayload, 'ruleId'>;
  [McpAudit.ToolCall]: ReadBack<ToolCallPayload, 'tool_code'>;
  [McpAudit.ToolResult]: ReadBack<ToolResultPayload, 'tool_code'>;
  [McpAudit.OrchestrationRequest]: ReadBack<OrchestrationRequestPayload, 'tool_code'>;
  [McpAudit.OrchestrationResult]: ReadBack<OrchestrationResultPayload, 'tool_code'>;
  [McpAudit.OrchestrationError]: ReadBack<OrchestrationErrorPayload, 'tool_code'>;
  [McpAudit.ApprovalGranted]: ReadBack<ApprovalDecisionPayload, 'tool_code'>;
  [McpAudit.ApprovalRejected]: ReadBack<ApprovalDecisionPayload, 'tool_code'>;
  [McpAudit.ApprovalExpired]: ReadBack<ApprovalDecisionPayload, 'tool_code'>;
  [McpAudit.ToolHoldResolved]: ReadBack<ToolHoldResolvedPayload, 'tool_code' | 'action'>;
}
export type ReadBackStage = keyof ReadBackPayloads;

/** `_meta` as read back: absent when the audit policy leaves it out; each field of its type when there. */
export type ReadAuditMeta = Partial<Pick<StoredAuditMeta, 'stage' | 'intent' | 'state' | 'userInputParams'>>;

export type ParsedAudit =
  | {
      [S in ReadBackStage]: { kind: 'read'; stage: S; payload: ReadBackPayloads[S]; meta: ReadAuditMeta | null };
    }[ReadBackStage]
  /** A stage no reader parses: its payload is an object, and nothing more is known. */
  | { kind: 'other'; stage: string; payload: JsonObject; meta: ReadAuditMeta | null }
  | { kind: 'unreadable'; stage: string; problem: string };

type Check = (value: unknown) => boolean;
const text: Check = (v) => typeof v === 'string';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const int: Check = (v) => Number.isInteger(v);
const bool: Check = (v) => typeof v === 'boolean';
const obj: Check = isJsonObject;
const json: Check = (v) => v !== undefined;
const orNull =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v);

/** Every field a shape names: required ones must be there; all must be of their type when there. */
interface Shape {
  required: readonly string[];
  fields: Readonly<Record<string, Check>>;
}

const frame = { step: text, stepClass: text };
const approval: Shape = {
  required: ['tool_code'],
  fields: {
    tool_code: text,
    call_index: int,
    decision: oneOf('APPROVED', 'REJECTED', 'EXPIRED'),
    reason: orNull(text),
    decided_by: orNull(text),
  },
};

const engineFailure: Shape = {
  required: ['errorCode'],
  fields: { ...frame, errorCode: text, message: text, recoverable: bool, attempt: int },
};

const SHAPES: { readonly [S in ReadBackStage]: Shape } = {
  [AuditStage.StepEnter]: { required: ['step'], fields: frame },
  [AuditStage.StepExit]: {
    required: ['step'],
    fields: { ...frame, outcome: oneOf('Continue', 'Stop'), durationMs: num },
  },
  [AuditStage.StepError]: {
    required: ['step'],
    fields: { ...frame, durationMs: num, errorType: text, errorMessage: text, _errorMeta: obj },
  },
  [AuditStage.EngineKnownFailure]: engineFailure,
  [AuditStage.EngineUnknownFailure]: engineFailure,
  [AuditStage.UserInput]: { required: ['text'], fields: { text } },
  [AuditStage.AssistantOutput]: {
    required: ['output'],
    fields: { output: json, outputFormat: orNull(text), responseType: text, responseId: int, context: obj },
  },
  [AuditStage.EngineReturn]: {
    required: ['intent', 'state'],
    fields: { intent: text, state: text, commit: text, conversationStatus: text, final_result: obj },
  },
  [AuditStage.RuleApplied]: { required: ['ruleId'], fields: { ruleId: int, action: text } },
  [McpAudit.ToolCall]: {
    required: ['tool_code'],
    fields: { tool_code: text, args: obj, intent: text, state: text, observation_count: int, call_index: int },
  },
  [McpAudit.ToolResult]: { required: ['tool_code'], fields: { tool_code: text, tool_group: orNull(text), rows: text } },
  [McpAudit.OrchestrationRequest]: {
    required: ['tool_code'],
    fields: { tool_code: text, tool_group: orNull(text), args: obj },
  },
  [McpAudit.OrchestrationResult]: {
    required: ['tool_code'],
    fields: { tool_code: text, tool_group: orNull(text), status: text, result: json },
  },
  [McpAudit.OrchestrationError]: {
    required: ['tool_code'],
    fields: { tool_code: text, tool_group: orNull(text), args: obj, error: text, errorType: text },
  },
  [McpAudit.ApprovalGranted]: approval,
  [McpAudit.ApprovalRejected]: approval,
  [McpAudit.ApprovalExpired]: approval,
  [McpAudit.ToolHoldResolved]: {
    required: ['tool_code', 'action'],
    fields: {
      tool_code: text,
      call_index: int,
      hold: int,
      action: oneOf(...HELD_TOOL_ACTIONS, 'expired'),
      decided_by: orNull(text),
      reason: orNull(text),
      verified_result: json,
    },
  },
};

const META: Shape = {
  required: [],
  fields: { stage: text, intent: text, state: text, userInputParams: obj },
};

/** Why an object does not have the shape, or null when it does. */
function shapeProblem(value: JsonObject, shape: Shape, where: string): string | null {
  for (const name of shape.required) if (!(name in value)) return `${where}${name} is missing`;
  for (const [name, check] of Object.entries(shape.fields)) {
    if (name in value && !check(value[name])) return `${where}${name} is ${describe(value[name])}`;
  }
  return null;
}

function describe(value: Json | undefined): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  // The type only: a row's values may be what the API must not show (an internal error message).
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `RULE_APPLIED (RulesStep)` is read as RULE_APPLIED; a stage nobody reads back is null. */
function readBackStage(stage: string): ReadBackStage | null {
  if (stage.startsWith(`${AuditStage.RuleApplied} (`)) return AuditStage.RuleApplied;
  return Object.hasOwn(SHAPES, stage) ? (stage as ReadBackStage) : null;
}

/**
 * Reads one ce_audit row's payload as its stage's declared type. A row from the database may hold
 * anything; one that is not what its stage's writer writes is `unreadable`, with the reason, and
 * never throws.
 */
export function parseAudit(row: { stage: unknown; payload: unknown }): ParsedAudit {
  const stage = typeof row.stage === 'string' ? row.stage : String(row.stage);
  const unreadable = (problem: string): ParsedAudit => ({ kind: 'unreadable', stage, problem });
  if (typeof row.stage !== 'string') return unreadable('its stage is not a string');
  const payload = row.payload as Json | undefined;
  if (!isJsonObject(payload)) return unreadable(`its payload is ${describe(payload)}, not an object`);
  // _meta is the session beside the row, read by few (what-if's params): one that is not what the writer writes is
  // left out, as when the audit policy keeps none, and the row itself stays readable.
  const rawMeta = payload['_meta'];
  const meta =
    isJsonObject(rawMeta) && shapeProblem(rawMeta, META, '_meta.') === null ? (rawMeta as ReadAuditMeta) : null;
  const known = readBackStage(stage);
  if (known === null) return { kind: 'other', stage, payload, meta };
  const problem = shapeProblem(payload, SHAPES[known], '');
  if (problem) return unreadable(problem);
  return { kind: 'read', stage: known, payload, meta } as ParsedAudit;
}

/**
 * One stage's rows, each with its payload read as the stage's declared type; rows that cannot be read are left
 * out (a reader that must say so uses parseAudit).
 */
export function readStageRows<R extends { stage: unknown; payload: unknown }, S extends ReadBackStage>(
  rows: readonly R[],
  stage: S
): { row: R; payload: ReadBackPayloads[S]; meta: ReadAuditMeta | null }[] {
  return rows.flatMap((row) => {
    const parsed = parseAudit(row);
    return parsed.kind === 'read' && parsed.stage === stage
      ? [{ row, payload: parsed.payload as ReadBackPayloads[S], meta: parsed.meta }]
      : [];
  });
}

/** The same words wherever an unreadable row is shown (trace, what-if facts, API). */
export function unreadableAuditText(parsed: { stage: string; problem: string }): string {
  return `unreadable audit row ${parsed.stage}: ${parsed.problem}`;
}
