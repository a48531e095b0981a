import { classifyIntent } from '../../core/intent/classifier';
import { isTruthyFlag } from '../../core/params/safe';
import { P } from '../../core/params/keys';
import { schemaStatus } from '../../core/schema/completeness';
import { scopedSchema } from '../../core/schema/resolve';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { resolveIntentByAgent } from './intent-agent';
import { applyRules, publishVerbose } from './support';

const resolved = (v: string) => v.trim() !== '' && v.trim().toUpperCase() !== 'UNKNOWN';

/** An intent is held while its schema is being collected (§4.1 step 2, §4.4). */
function collectingSchema(ctx: StepContext): boolean {
  const session = ctx.scope.session;
  if (session.intentLocked) return true;
  const schema = scopedSchema(ctx.snapshot, session.intent, session.state);
  return schema !== undefined && !schemaStatus(schema.jsonSchema, session.context).complete;
}

/** Classifier path (D4): POST_CLASSIFIER_INTENT rules first, then POST_AGENT_INTENT rules too. */
async function acceptClassifier(ctx: StepContext, intent: string, state: string): Promise<void> {
  const session = ctx.scope.session;
  session.intent = intent;
  session.state = state;
  session.pendingClarification = null;
  await applyRules(ctx, 'POST_CLASSIFIER_INTENT', 'IntentResolutionStep Classifier', 'CLASSIFIER');
  if (!ctx.scope.stop) await applyRules(ctx, 'POST_AGENT_INTENT', 'IntentResolutionStep PostIntent', 'CLASSIFIER');
  ctx.scope.audit('INTENT_RESOLVED_BY_CLASSIFIER', {
    resolvedIntent: session.intent,
    source: 'CLASSIFIER',
    classifierIntent: intent,
    agentIntent: null,
  });
  publishIntentResolved(ctx, 'CLASSIFIER', session.intent);
}

function publishIntentResolved(ctx: StepContext, source: 'CLASSIFIER' | 'AGENT', resolvedIntent: string): void {
  publishVerbose(ctx, {
    stepName: 'IntentResolutionStep',
    determinant: 'INTENT_RESOLVED',
    metadata: { source, resolvedIntent },
  });
}

async function classifyThenAgent(ctx: StepContext): Promise<void> {
  const session = ctx.scope.session;
  const outcome = classifyIntent(ctx.snapshot, session.userText);
  if (outcome.kind === 'MATCH') {
    const { row } = outcome;
    ctx.scope.audit('INTENT_CLASSIFICATION_MATCHED', {
      intent: outcome.intent,
      state: outcome.state,
      classifierId: row.classifierId,
      ruleType: row.ruleType,
      pattern: row.pattern,
    });
    await acceptClassifier(ctx, outcome.intent, outcome.state);
    return;
  }
  if (outcome.kind === 'COLLISION') {
    ctx.scope.audit('INTENT_CLASSIFIER_COLLISION', {
      matchedIntents: outcome.matchedIntents,
      matchedByRule: outcome.matchedByRule,
    });
  } else {
    ctx.scope.audit('INTENT_CLASSIFIER_NO_MATCH', { userText: session.userText });
  }
  const agentIntent = await resolveIntentByAgent(ctx);
  if (agentIntent === null) {
    ctx.scope.audit('INTENT_RESOLVE_NO_CHANGE', { intent: session.intent, state: session.state });
    return;
  }
  ctx.scope.audit('INTENT_RESOLVED_BY_AGENT', {
    resolvedIntent: agentIntent,
    source: 'AGENT',
    classifierIntent: null,
    agentIntent,
  });
  publishIntentResolved(ctx, 'AGENT', agentIntent);
}

/** Intent resolution (§4.1): lock and policy skips, then classifiers, then the LLM agent. */
export async function intentResolution(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  ctx.scope.audit('INTENT_RESOLVE_START', {
    previousIntent: session.intent,
    intentLocked: session.intentLocked,
    intentLockReason: session.intentLockReason,
  });
  if (collectingSchema(ctx)) {
    session.intentLocked = true;
    session.intentLockReason = 'SCHEMA_INCOMPLETE';
    session.pendingClarification = null;
    ctx.scope.audit('INTENT_RESOLVE_SKIPPED_SCHEMA_COLLECTION', {
      intent: session.intent,
      state: session.state,
      intentLocked: true,
      intentLockReason: 'SCHEMA_INCOMPLETE',
    });
  } else if (
    isTruthyFlag(session.inputParams[P.skipIntentResolution]) &&
    resolved(session.intent) &&
    resolved(session.state)
  ) {
    ctx.scope.audit('INTENT_RESOLVE_SKIPPED_POLICY', {
      intent: session.intent,
      state: session.state,
      policyDecision: session.inputParams[P.policyDecision] ?? null,
      routingDecision: session.inputParams[P.routingDecision] ?? null,
    });
  } else {
    await classifyThenAgent(ctx);
  }
  return ctx.scope.output();
}
