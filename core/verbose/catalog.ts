import { hasStepFrame, STEP_NAMES, STEP_TABLE } from '../turn/steps';

/**
 * The progress events this engine publishes (reference "Verbose messages"): a step name and a
 * determinant, as the Java engine names them, so ce_verbose rows written for it keep working.
 * Validation refuses a row whose step or determinant is not one of these (it could never show).
 */
export const STEP_FRAME_DETERMINANTS = ['STEP_ENTER', 'STEP_EXIT', 'STEP_ERROR'] as const;

/** Events published inside a step, under the Java engine's step (class) name. */
export const STEP_EVENTS: Readonly<Record<string, readonly string[]>> = {
  /** The MCP loop: the planner's CALL_TOOL (before the tool runs), a tool's result, the final answer. */
  McpToolStep: ['MCP_TOOL_CALL', 'MCP_TOOL_RESULT', 'MCP_FINAL_ANSWER'],
  /** Each planner LLM call, before it is made. */
  McpPlanner: ['MCP_PLAN_LLM_INPUT'],
  /** Confirm / edit / retry over collected fields. */
  CorrectionStep: ['RETRY_REQUESTED', 'CONFIRM_ACCEPT', 'CORRECTION_PATCH_APPLIED', 'CORRECTION_PATCH_REJECTED'],
  IntentResolutionStep: ['INTENT_RESOLVED'],
  ResponseResolutionStep: ['RESOLVE_RESPONSE'],
};

/** Every step activity, as `<name>Step`: each publishes STEP_ENTER, STEP_EXIT and STEP_ERROR. */
export const FRAME_STEP_NAMES: readonly string[] = STEP_NAMES.filter((name) => hasStepFrame(STEP_TABLE[name])).map(
  (name) => `${name}Step`
);

/** Every step name an EXACT row may name, upper-cased → as published. */
const STEP_NAMES_BY_KEY = new Map<string, string>(
  [...FRAME_STEP_NAMES, ...Object.keys(STEP_EVENTS)].map((name) => [name.toUpperCase(), name])
);

export const VERBOSE_DETERMINANTS: readonly string[] = [
  ...STEP_FRAME_DETERMINANTS,
  ...new Set(Object.values(STEP_EVENTS).flat()),
];

export function isKnownVerboseStep(name: string): boolean {
  return STEP_NAMES_BY_KEY.has(name.trim().toUpperCase());
}

export function isKnownVerboseDeterminant(determinant: string): boolean {
  const key = determinant.trim().toUpperCase();
  return VERBOSE_DETERMINANTS.includes(key);
}

/** The determinants a named step publishes (frame events included for step activities). */
export function determinantsOf(step: string): readonly string[] {
  const name = STEP_NAMES_BY_KEY.get(step.trim().toUpperCase());
  if (name === undefined) return [];
  const frame = FRAME_STEP_NAMES.includes(name) ? STEP_FRAME_DETERMINANTS : [];
  return [...frame, ...(STEP_EVENTS[name] ?? [])];
}

/** Metadata every event carries (eventMetadata), whichever step published it. */
export const VERBOSE_EVENT_KEYS = ['conversationId', 'stepName', 'determinant'] as const;

const CORRECTION_METADATA = ['intent', 'state', 'routingDecision'];

/**
 * What each determinant's publisher adds to the event metadata (activities/pipeline, activities/mcp): a message
 * reads it at the top level (`{{tool_code}}`) or under `metadata`. Validation refuses a message variable that
 * neither this nor the session provides, as it does for prompts.
 */
export const DETERMINANT_METADATA: Readonly<Record<string, readonly string[]>> = {
  STEP_ENTER: [],
  STEP_EXIT: [],
  STEP_ERROR: [],
  MCP_TOOL_CALL: ['tool_code', 'args', 'error'],
  MCP_TOOL_RESULT: ['tool_code', 'tool_group'],
  MCP_FINAL_ANSWER: ['answer'],
  MCP_PLAN_LLM_INPUT: ['iteration'],
  RETRY_REQUESTED: CORRECTION_METADATA,
  CONFIRM_ACCEPT: CORRECTION_METADATA,
  CORRECTION_PATCH_APPLIED: [...CORRECTION_METADATA, 'field'],
  CORRECTION_PATCH_REJECTED: [...CORRECTION_METADATA, 'field', 'reason'],
  INTENT_RESOLVED: ['source', 'resolvedIntent'],
  RESOLVE_RESPONSE: ['responseId', 'responseType', 'outputFormat'],
};

/** The metadata a row's message may read: its determinant's, or any event's for ANY. */
export function verboseMetadataKeys(determinant: string): readonly string[] {
  const own = DETERMINANT_METADATA[determinant.trim().toUpperCase()] ?? Object.values(DETERMINANT_METADATA).flat();
  return [...new Set([...VERBOSE_EVENT_KEYS, ...own])];
}
