import { APPROVAL_CONTEXT_KEY } from '../guardrail/gate';

/**
 * Every `context.*` path the engine itself writes, in one place: config validation warns about a
 * template or rule that reads a context path outside this list (and outside the schema fields and
 * rule-written keys), and `npm run docs:reference` prints it into docs/config-reference.md.
 * A path ending in `.*` covers everything below it (open-ended objects such as tool results).
 */
export interface EngineContextPath {
  /** Path below `context`, e.g. `mcp.lifecycle.status`. */
  path: string;
  /** The JSON type the value has. */
  type: 'string' | 'boolean' | 'number' | 'object' | 'array' | 'any';
  /** The pipeline step that writes it. */
  writtenBy: string;
  /** When it is written (and cleared). */
  when: string;
}

const MCP_STEP = 'McpToolStep';
const LIFECYCLE_WHEN =
  "every planner turn and every MCP skip; cleared at the start of the next planner run, or of a later turn's skip";
/** When the planner's own output goes (activities/mcp/prepare.ts): no later turn can answer with it. */
const PLANNER_OUTPUT_CLEARED = 'cleared when a later turn reaches the MCP step, planner run or not';

export const ENGINE_CONTEXT_PATHS: readonly EngineContextPath[] = [
  {
    path: 'mcp.finalAnswer',
    type: 'string',
    writtenBy: MCP_STEP,
    when: `the planner answered (ANSWER or fallback); ${PLANNER_OUTPUT_CLEARED} (an open semantic clarification stays)`,
  },
  { path: 'mcp.finalAnswerDetermined', type: 'boolean', writtenBy: MCP_STEP, when: 'each planner iteration' },
  {
    path: 'mcp.toolExecutionAbrupted',
    type: 'boolean',
    writtenBy: MCP_STEP,
    when: 'the planner loop ended without an answer (loop limit)',
  },
  {
    path: 'mcp.toolExecutionAbruptionLimit',
    type: 'number',
    writtenBy: MCP_STEP,
    when: 'the planner loop starts (the configured limit)',
  },
  {
    path: 'mcp.observations',
    type: 'array',
    writtenBy: MCP_STEP,
    when: `after each tool call: [{toolCode, args, status, result}]; ${PLANNER_OUTPUT_CLEARED}`,
  },
  { path: 'mcp.observations.*', type: 'any', writtenBy: MCP_STEP, when: 'after each tool call' },
  { path: 'mcp.lifecycle', type: 'object', writtenBy: MCP_STEP, when: LIFECYCLE_WHEN },
  ...(
    [
      ['phase', 'string'],
      ['status', 'string'],
      ['outcome', 'string'],
      ['finished', 'boolean'],
      ['blocked', 'boolean'],
      ['error', 'boolean'],
      ['toolExecuted', 'boolean'],
      ['lastAction', 'string'],
      ['lastToolCode', 'string'],
      ['lastToolGroup', 'string'],
      ['lastToolArgs', 'object'],
      ['errorMessage', 'string'],
      ['finalAnswerDetermined', 'boolean'],
      ['toolExecutionAbrupted', 'boolean'],
      ['toolExecutionAbruptionLimit', 'number'],
    ] as const
  ).map(([name, type]) => ({ path: `mcp.lifecycle.${name}`, type, writtenBy: MCP_STEP, when: LIFECYCLE_WHEN })),
  {
    path: 'mcp.toolExecutionError',
    type: 'object',
    writtenBy: MCP_STEP,
    when:
      'a planner tool failed: {toolCode, toolGroup, errorMessage, errorType, rootCauseMessage, rootCauseClass, attempts, args}; ' +
      "the messages say which tool failed and how (Tool X timed out (TOOL_TIMEOUT).), never the driver's words",
  },
  { path: 'mcp.toolExecutionError.*', type: 'any', writtenBy: MCP_STEP, when: 'a tool failed' },
  {
    path: 'mcp.toolExecution',
    type: 'object',
    writtenBy: 'ToolOrchestrationStep',
    when: 'a direct tool_request ran (phase POST_TOOL_EXECUTION)',
  },
  ...[
    'phase',
    'status',
    'outcome',
    'finished',
    'error',
    'scopeMismatch',
    'toolExecuted',
    'toolCode',
    'toolGroup',
    'result',
    'meta',
    'errorMessage',
    'errorType',
    'errorSource',
  ].map((name) => ({
    path: `mcp.toolExecution.${name}`,
    type: 'any' as const,
    writtenBy: 'ToolOrchestrationStep',
    when: 'a direct tool_request ran',
  })),
  { path: 'mcp.toolExecution.result.*', type: 'any', writtenBy: 'ToolOrchestrationStep', when: 'the tool succeeded' },
  {
    path: 'mcp.semantic',
    type: 'object',
    writtenBy: MCP_STEP,
    when: 'a semantic tool (db.semantic.interpret / db.semantic.query / postgres.query) ran',
  },
  {
    path: 'mcp.semantic.*',
    type: 'any',
    writtenBy: MCP_STEP,
    when: 'pipeline, tools, clarification, operationSupported',
  },
  {
    path: 'intent_lock',
    type: 'object',
    writtenBy: 'RulesStep / PersistConversationStep',
    when: 'every turn: {locked, reason}, read back when the conversation is loaded',
  },
  { path: 'intent_lock.locked', type: 'boolean', writtenBy: 'RulesStep / PersistConversationStep', when: 'every turn' },
  { path: 'intent_lock.reason', type: 'string', writtenBy: 'RulesStep / PersistConversationStep', when: 'every turn' },
  {
    path: 'pending_clarification',
    type: 'object',
    writtenBy: 'RulesStep / PersistConversationStep',
    when: 'a clarification question is outstanding (intent agent, disambiguation, semantic query); removed once answered',
  },
  ...['question', 'reason'].map((name) => ({
    path: `pending_clarification.${name}`,
    type: 'string' as const,
    writtenBy: 'RulesStep / PersistConversationStep',
    when: 'with the question above',
  })),
  { path: 'memory', type: 'object', writtenBy: 'MemoryStep', when: 'every turn when flow.memory.enabled' },
  {
    path: 'memory.session_summary',
    type: 'string',
    writtenBy: 'MemoryStep',
    when: 'every turn when flow.memory.enabled',
  },
  {
    path: 'pending_action_runtime',
    type: 'object',
    writtenBy: 'PendingActionStep / ActionLifecycleStep',
    when: 'a ce_pending_action is opened, executed, rejected or expires',
  },
  ...[
    'action_key',
    'action_ref',
    'status',
    'expires_turn',
    'expires_at_epoch_ms',
    'expired_turn',
    'expired_at_epoch_ms',
  ].map((name) => ({
    path: `pending_action_runtime.${name}`,
    type: 'any' as const,
    writtenBy: 'PendingActionStep / ActionLifecycleStep',
    when: 'with the runtime above',
  })),
  { path: 'pending_action_runtime.*', type: 'any', writtenBy: 'PendingActionStep', when: 'with the runtime above' },
];

/**
 * Whether `path` (below `context`, dotted) is one the engine writes: equal to a listed path, a
 * parent of one, or below a `.*` entry.
 */
export function isEngineContextPath(path: string): boolean {
  return ENGINE_CONTEXT_PATHS.some((entry) => {
    if (entry.path.endsWith('.*')) {
      const base = entry.path.slice(0, -2);
      return path === base || path.startsWith(`${base}.`) || path.startsWith(`${base}[`);
    }
    return entry.path === path || entry.path.startsWith(`${path}.`);
  });
}

/**
 * The top-level context keys the engine owns: it writes them and reads them back (planner state, intent
 * lock, clarification, pending-action runtime, memory). A model's extraction answer never writes them
 * (core/schema/extraction-answer.ts), and a `ce_output_schema` may not declare a field of that name.
 */
export const ENGINE_CONTEXT_KEYS: readonly string[] = [
  ...new Set(ENGINE_CONTEXT_PATHS.map((entry) => entry.path.split('.')[0] as string)),
];

/**
 * The top-level context keys a model's answer never writes: the engine's own, and the approval the guardrail's
 * approval gate reads (§5.9), which a model that could write it would grant its own sensitive action.
 */
export const MODEL_PROTECTED_CONTEXT_KEYS: readonly string[] = [...ENGINE_CONTEXT_KEYS, APPROVAL_CONTEXT_KEY];

export const isModelProtectedContextKey = (key: string): boolean => MODEL_PROTECTED_CONTEXT_KEYS.includes(key);
