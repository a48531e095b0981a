import { isJsonObject } from '../../json';
import { buildPromptVars } from '../../prompt/vars';
import type { Payload, Session } from '../../session';
import { renderTemplate } from '../../templates';
import type { ActionContext } from './context';

function mcpFinalAnswer(session: Session): string {
  const mcp = session.context['mcp'];
  const answer = isJsonObject(mcp) ? mcp['finalAnswer'] : undefined;
  return typeof answer === 'string' ? answer : '';
}

/**
 * SHORT_CIRCUIT (D5): ends rule evaluation and answers the turn without an LLM call, with the
 * rendered action value, or `context.mcp.finalAnswer` when the value is empty. With neither there
 * is nothing to answer with, so the turn continues normally (audited with answered=false).
 */
export function shortCircuit(ctx: ActionContext): boolean {
  const { scope, rule } = ctx;
  const template = (rule.actionValue ?? '').trim();
  const vars = () => buildPromptVars(scope.session, { schemaJson: ctx.schemaJson(), now: ctx.now });
  const text = template !== '' ? renderTemplate(template, vars()) : mcpFinalAnswer(scope.session);
  const source = template !== '' ? 'ACTION_VALUE' : 'MCP_FINAL_ANSWER';
  if (text.trim() === '') {
    scope.audit('SHORT_CIRCUIT', { ruleId: rule.ruleId, answered: false, source, reason: 'NO_ANSWER_AVAILABLE' });
    return false;
  }
  const payload: Payload = { type: 'TEXT', value: text };
  scope.session.payload = payload;
  scope.session.lastAssistantJson = { type: 'TEXT', value: text };
  scope.stop = { reason: 'SHORT_CIRCUIT', payload };
  scope.audit('SHORT_CIRCUIT', { ruleId: rule.ruleId, answered: true, source, text });
  return true;
}
