import { isJsonObject } from '../../json';
import { withoutEarlierOutput } from '../../mcp/turn-output';
import { buildPromptVars } from '../../prompt/vars';
import type { Payload, Session } from '../../session';
import { renderTemplate } from '../../templates';
import { runsBeforeDirectTool, runsBeforePlanner } from '../phase';
import type { ActionContext } from './context';

function mcpFinalAnswer(session: Session): string {
  const mcp = session.context['mcp'];
  const answer = isJsonObject(mcp) ? mcp['finalAnswer'] : undefined;
  return typeof answer === 'string' ? answer : '';
}

/**
 * The session the answer is rendered from. A rule of a phase before this turn's planner (or direct tool) still sees
 * what an earlier turn's left (it matches on it, as in Java), but ends the turn before McpPrepare (ToolOrchestration)
 * clears it: its answer must not say it (seed "stale move ID bug").
 */
function answerSession(ctx: ActionContext): Session {
  const earlier = { planner: runsBeforePlanner(ctx.phase), directTool: runsBeforeDirectTool(ctx.phase) };
  return withoutEarlierOutput(ctx.scope.session, earlier).session;
}

/**
 * SHORT_CIRCUIT (D5): ends rule evaluation and answers the turn without an LLM call, with the
 * rendered action value, or `context.mcp.finalAnswer` when the value is empty. With neither there
 * is nothing to answer with, so the turn continues normally (audited with answered=false; reason
 * EARLIER_TURN_ANSWER when the only answer there is an earlier turn's). A value that reads an earlier
 * turn's output finds nothing: the strict render fails the turn with UNRESOLVED_PROMPT_VARIABLE.
 */
export function shortCircuit(ctx: ActionContext): boolean {
  const { scope, rule } = ctx;
  const answerFrom = answerSession(ctx);
  const template = (rule.actionValue ?? '').trim();
  const vars = () => buildPromptVars(answerFrom, { schemaJson: ctx.schemaJson(), now: ctx.now });
  const text = template !== '' ? renderTemplate(template, vars()) : mcpFinalAnswer(answerFrom);
  const source = template !== '' ? 'ACTION_VALUE' : 'MCP_FINAL_ANSWER';
  if (text.trim() === '') {
    const earlier = source === 'MCP_FINAL_ANSWER' && mcpFinalAnswer(scope.session).trim() !== '';
    scope.audit('SHORT_CIRCUIT', {
      ruleId: rule.ruleId,
      answered: false,
      source,
      reason: earlier ? 'EARLIER_TURN_ANSWER' : 'NO_ANSWER_AVAILABLE',
    });
    return false;
  }
  const payload: Payload = { type: 'TEXT', value: text };
  scope.session.payload = payload;
  scope.session.lastAssistantJson = { type: 'TEXT', value: text };
  scope.stop = { reason: 'SHORT_CIRCUIT', payload };
  scope.audit('SHORT_CIRCUIT', { ruleId: rule.ruleId, answered: true, source, text });
  return true;
}
