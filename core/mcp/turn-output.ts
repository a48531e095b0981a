import type { Session } from '../session';
import { cloneSession } from '../step/scope';
import {
  canonicalTemplateVariable,
  parseTemplate,
  resolveVariablePath,
  type TemplateVariables,
  type VariablePath,
} from '../templates';
import { clearMcpTurnContext, earlierPlannerOutput, readMcp } from './context';

/**
 * What a turn's tools and planner said, as `context.mcp` keeps it: a reply may say it only in the turn that produced
 * it (seed "stale move ID bug": "Second request returns previous move result").
 */
export const TURN_OUTPUT_KEYS: ReadonlySet<string> = new Set([
  'finalAnswer',
  'observations',
  'semantic',
  'toolExecution',
  'toolExecutionError',
]);

/** Which earlier turn's output a step still holds: the planner's (before McpPrepare), the direct tool's (before ToolOrchestration). */
export interface EarlierOutput {
  planner: boolean;
  directTool: boolean;
}

/**
 * The session as an answer may read it: a copy without what an earlier turn's planner and direct tool left, and what
 * was left out (empty when nothing was, and then the session itself). Rules still match on the session as it is.
 */
export function withoutEarlierOutput(session: Session, earlier: EarlierOutput): { session: Session; hidden: string[] } {
  const planner = earlier.planner ? earlierPlannerOutput(session) : [];
  const directTool = earlier.directTool && readMcp(session)?.['toolExecution'] !== undefined ? ['toolExecution'] : [];
  if (planner.length === 0 && directTool.length === 0) return { session, hidden: [] };
  const view = cloneSession(session);
  if (planner.length > 0) clearMcpTurnContext(view);
  if (directTool.length > 0) delete readMcp(view)?.['toolExecution'];
  return { session: view, hidden: [...planner, ...directTool] };
}

/** The TURN_OUTPUT_KEYS key a template variable reads (`context.mcp.<key>…`, `mcp.<key>…`), `tool_result`, or null. */
export function turnOutputRead(path: VariablePath): string | null {
  if (path.root === 'tool_result') return 'tool_result';
  const segments = path.segments.map(String);
  const flattened = path.root === 'mcp';
  const inMcp = flattened || (canonicalTemplateVariable(path.root) === 'context' && segments[0] === 'mcp');
  const key = inMcp ? segments[flattened ? 0 : 1] : undefined;
  return key !== undefined && TURN_OUTPUT_KEYS.has(key) ? key : null;
}

/** Whether a template variable reads a tool's or the planner's output (turnOutputRead). */
export function readsTurnOutput(path: VariablePath): boolean {
  return turnOutputRead(path) !== null;
}

/** What a request's direct tool writes (ToolOrchestration, DirectToolCall); the other keys only the planner loop does. */
export const DIRECT_TOOL_OUTPUT: ReadonlySet<string> = new Set(['toolExecution', 'tool_result']);

/** Whether it reads what only the planner loop writes: not the direct tool's `toolExecution` or `tool_result`. */
export function readsPlannerOutput(path: VariablePath): boolean {
  const key = turnOutputRead(path);
  return key !== null && !DIRECT_TOOL_OUTPUT.has(key);
}

/**
 * The placeholders of `template` (no default) that read a tool's or the planner's output this turn does not have:
 * a reply written for a turn that ran the tool, which would otherwise say what an earlier turn's tool found.
 */
export function absentTurnOutput(template: string, vars: TemplateVariables): string[] {
  const absent: string[] = [];
  for (const part of parseTemplate(template)) {
    if (part.kind !== 'variable' || part.fallback !== undefined || !readsTurnOutput(part.path)) continue;
    let value: unknown;
    try {
      value = resolveVariablePath(part.path, vars);
    } catch {
      value = undefined;
    }
    if (value === undefined || value === null) absent.push(part.path.text);
  }
  return absent;
}
