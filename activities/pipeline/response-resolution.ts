import { AuditStage, type AssistantOutputPayload } from '../../core/audit/payloads';
import { EngineError, ErrorType } from '../../core/errors';
import { INTENT_COLLISION_STATE } from '../../core/intent/agent-decision';
import { selectResponse } from '../../core/response/select';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { ResponseRow } from '../../core/config/types';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { resolveCollision } from './response-collision';
import { resolveDerived } from './response-derived';
import { resolveExact } from './response-exact';
import { publishVerbose } from './support';

/** The ce_response for the session's intent and state, audited as resolved; none is a missing mapping. */
function resolvedResponse(ctx: StepContext): ResponseRow {
  const session = ctx.scope.session;
  const response = selectResponse(ctx.snapshot, session.intent, session.state);
  if (!response) {
    ctx.scope.audit('RESPONSE_MAPPING_NOT_FOUND', { intent: session.intent, state: session.state });
    throw new EngineError(
      ErrorType.ResponseMappingNotFound,
      `no ce_response for intent ${session.intent} in state ${session.state}`,
      {
        details: { intent: session.intent, state: session.state },
      }
    );
  }
  ctx.scope.audit('RESOLVE_RESPONSE', {
    responseId: response.responseId,
    intent: session.intent,
    state: session.state,
    responseType: response.responseType,
    outputFormat: response.outputFormat,
  });
  publishVerbose(ctx, {
    stepName: 'ResponseResolutionStep',
    determinant: 'RESOLVE_RESPONSE',
    metadata: {
      responseId: response.responseId,
      responseType: response.responseType,
      outputFormat: response.outputFormat,
    },
  });
  return response;
}

/** The reply (§8): collision question, or the ce_response for intent/state, EXACT or DERIVED. */
export async function responseResolution(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  if (session.state.trim().toUpperCase() === INTENT_COLLISION_STATE) {
    await resolveCollision(ctx);
    return ctx.scope.output();
  }
  const response = resolvedResponse(ctx);
  const type = response.responseType.trim().toUpperCase();
  if (type !== 'EXACT' && type !== 'DERIVED') {
    throw new EngineError(
      ErrorType.ConfigInvalid,
      `ce_response[${response.responseId}] has unknown response_type ${response.responseType}`
    );
  }
  const payload = type === 'EXACT' ? resolveExact(ctx, response) : await resolveDerived(ctx, response);
  ctx.scope.audit(AuditStage.AssistantOutput, {
    output: payload.value,
    outputFormat: response.outputFormat,
    responseType: response.responseType,
    responseId: response.responseId,
    intent: session.intent,
    state: session.state,
    context: session.context,
    schemaJson: sessionSchemaSubset(ctx.snapshot, session),
  } satisfies AssistantOutputPayload);
  return ctx.scope.output();
}
