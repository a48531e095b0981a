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

/**
 * Whether a template variable reads a tool's or the planner's output: `context.mcp.<key>…` (or the flattened
 * `mcp.<key>…`) for a TURN_OUTPUT_KEYS key, or the direct tool's `tool_result`.
 */
export function readsTurnOutput(path: VariablePath): boolean {
  const segments = path.segments.map(String);
  if (path.root === 'tool_result') return true;
  if (path.root === 'mcp') return TURN_OUTPUT_KEYS.has(segments[0] ?? '');
  return (
    canonicalTemplateVariable(path.root) === 'context' &&
    segments[0] === 'mcp' &&
    TURN_OUTPUT_KEYS.has(segments[1] ?? '')
  );
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
