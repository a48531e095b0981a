import { blockingPolicy } from '../../core/policy/match';
import { textPayload } from '../../core/response/payload';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

/**
 * Hard block by ce_policy, before any LLM call (D2): the canned text is the reply, the turn stops
 * and goes straight to the commit steps, which store it with conversation status BLOCKED (until the
 * next turn that completes, which stores RUNNING).
 */
export async function policyEnforcement(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const policy = blockingPolicy(ctx.snapshot, session.userText);
  if (!policy) return ctx.scope.output();
  const reply = textPayload(policy.responseText);
  session.conversationStatus = 'BLOCKED';
  session.payload = reply.payload;
  session.lastAssistantJson = reply.stored;
  ctx.scope.audit('POLICY_BLOCK', {
    policyId: policy.policyId,
    ruleType: policy.ruleType,
    pattern: policy.pattern,
    responseText: policy.responseText,
  });
  ctx.scope.stop = { reason: 'POLICY_BLOCK', payload: reply.payload };
  return ctx.scope.output();
}
