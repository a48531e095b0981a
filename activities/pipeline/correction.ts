import { isRetryRequest, readFieldPatch, type FieldPatch, type RefusedPatch } from '../../core/correction/patch';
import { currentDialogueAct } from '../../core/dialogue/acts';
import { allowsCapability, interactionTemplate } from '../../core/interaction/contract';
import { P } from '../../core/params/keys';
import { applySchemaStatus } from '../../core/schema/apply';
import { schemaFieldDetails, schemaStatus } from '../../core/schema/completeness';
import { schemaForCorrection } from '../../core/schema/resolve';
import { cutText } from '../../core/text/cut-text';
import type { JsonObject } from '../../core/json';
import type { OutputSchemaRow } from '../../core/config/types';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';
import { publishVerbose } from './support';

function route(ctx: StepContext, decision: string, extra: JsonObject = {}): void {
  Object.assign(ctx.scope.session.inputParams, {
    [P.routingDecision]: decision,
    [P.skipSchemaExtraction]: true,
    [P.skipIntentResolution]: true,
    ...extra,
  });
}

function eventPayload(ctx: StepContext, decision: string, extra: JsonObject = {}): JsonObject {
  const { intent, state } = ctx.scope.session;
  return { ...extra, intent, state, routingDecision: decision };
}

/**
 * The Java CorrectionStep's progress events: RETRY_REQUESTED, CONFIRM_ACCEPT, CORRECTION_PATCH_APPLIED; and
 * CORRECTION_PATCH_REJECTED, this engine's own.
 */
function progress(ctx: StepContext, determinant: string, metadata: JsonObject): void {
  publishVerbose(ctx, { stepName: 'CorrectionStep', determinant, metadata });
}

/**
 * Confirm / edit / retry over collected fields (§5.3–5.4), decided by the interaction contract of
 * the current state's prompt template. Resets the per-turn routing params first, every turn.
 */
export async function correction(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  Object.assign(session.inputParams, {
    [P.routingDecision]: 'CONTINUE_STANDARD_FLOW',
    [P.skipSchemaExtraction]: false,
    [P.correctionApplied]: false,
    [P.correctionTargetField]: null,
    [P.correctionRejectedField]: null,
    [P.correctionRejectedReason]: null,
  });
  const act = currentDialogueAct(session.inputParams[P.dialogueAct]);
  if (act === 'ANSWER') session.inputParams[P.routingDecision] = 'HANDLE_AS_ANSWER';
  const schema = schemaForCorrection(ctx.snapshot, session);
  if (!schema) return ctx.scope.output();
  const template = interactionTemplate(ctx.snapshot, session.intent, session.state);
  const allows = (c: Parameters<typeof allowsCapability>[1]) => (template ? allowsCapability(template, c) : false);

  if (allows('retry') && isRetryRequest(session.userText)) {
    route(ctx, 'RETRY_IN_PLACE');
    ctx.scope.audit('CORRECTION_STEP_RETRY_REQUESTED', eventPayload(ctx, 'RETRY_IN_PLACE'));
    progress(ctx, 'RETRY_REQUESTED', eventPayload(ctx, 'RETRY_IN_PLACE'));
  } else if (allows('affirm') && act === 'AFFIRM' && schemaStatus(schema.jsonSchema, session.context).complete) {
    applySchemaStatus(session, schema);
    route(ctx, 'PROCEED_CONFIRMED');
    ctx.scope.audit(
      'CORRECTION_STEP_CONFIRM_ACCEPT',
      eventPayload(ctx, 'PROCEED_CONFIRMED', { templateId: template?.templateId ?? null })
    );
    progress(ctx, 'CONFIRM_ACCEPT', eventPayload(ctx, 'PROCEED_CONFIRMED'));
  } else if (allows('edit') && act === 'EDIT') {
    const reading = readFieldPatch(session.userText, schemaFieldDetails(schema.jsonSchema));
    if (reading && 'patch' in reading) applyPatch(ctx, schema, reading.patch);
    else if (reading) refusePatch(ctx, reading.refused);
  }
  return ctx.scope.output();
}

function applyPatch(ctx: StepContext, schema: OutputSchemaRow, patch: FieldPatch): void {
  const session = ctx.scope.session;
  session.context[patch.field] = patch.value;
  applySchemaStatus(session, schema);
  route(ctx, 'APPLY_CORRECTION', { [P.correctionApplied]: true, [P.correctionTargetField]: patch.field });
  ctx.scope.audit(
    'CORRECTION_STEP_CORRECTION_PATCH_APPLIED',
    eventPayload(ctx, 'APPLY_CORRECTION', { field: patch.field, value: patch.value })
  );
  progress(ctx, 'CORRECTION_PATCH_APPLIED', eventPayload(ctx, 'APPLY_CORRECTION', { field: patch.field }));
}

/** The refused value as the audit row keeps it: the start of what the user wrote, enough to see why. */
const REFUSED_TEXT_CHARS = 200;

/**
 * An edit of a field whose value its type does not take: nothing is patched and the turn goes on as
 * the reference's fall-through (§5.3), but the refusal is audited, and the input params
 * `correction_rejected_field` / `_reason` let the reply say why the value did not change.
 */
function refusePatch(ctx: StepContext, refused: RefusedPatch): void {
  const params = ctx.scope.session.inputParams;
  Object.assign(params, { [P.correctionRejectedField]: refused.field, [P.correctionRejectedReason]: refused.reason });
  const decision = String(params[P.routingDecision]);
  const { field, reason } = refused;
  ctx.scope.audit('CORRECTION_STEP_CORRECTION_PATCH_REJECTED', {
    field,
    text: cutText(refused.text, REFUSED_TEXT_CHARS),
    reason,
    ...eventPayload(ctx, decision),
  });
  progress(ctx, 'CORRECTION_PATCH_REJECTED', eventPayload(ctx, decision, { field, reason }));
}
