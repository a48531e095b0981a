import { readSetting } from '../../core/config/setting';
import { InteractionPolicySettings as S } from '../../core/config/settings/pipeline';
import { currentDialogueAct, type DialogueAct } from '../../core/dialogue/acts';
import { isJsonObject } from '../../core/json';
import { P } from '../../core/params/keys';
import { hasValue, pendingActionCandidates } from '../../core/pending/catalog';
import type { Session } from '../../core/session';
import type { StepOutput } from '../../core/turn/contracts';
import type { StepContext } from '../step-runtime';

const DECISIONS = ['RECLASSIFY_INTENT', 'EXECUTE_PENDING_ACTION', 'REJECT_PENDING_ACTION', 'FILL_PENDING_SLOT'];
const resolved = (v: string) => v.trim() !== '' && v.trim().toUpperCase() !== 'UNKNOWN';

function hasPendingAction(ctx: StepContext, session: Session): boolean {
  const c = session.context;
  const p = session.inputParams;
  return (
    [
      c['pending_action'],
      c['pendingAction'],
      p['pending_action'],
      p['pendingAction'],
      p['pending_action_key'],
      p['pending_action_task'],
    ].some(hasValue) || pendingActionCandidates(ctx.snapshot, session.intent, session.state, null).length > 0
  );
}

function matrixDecision(ctx: StepContext, subject: string, act: DialogueAct): string | null {
  const matrix = readSetting(ctx.snapshot, S.matrix);
  if (!isJsonObject(matrix)) return null;
  const raw = matrix[`${subject}:${act}`];
  const decision = typeof raw === 'string' ? raw.trim().toUpperCase() : '';
  return DECISIONS.includes(decision) ? decision : null;
}

function decide(ctx: StepContext, act: DialogueAct, pendingAction: boolean, pendingSlot: boolean): string {
  const subject = pendingAction ? 'PENDING_ACTION' : pendingSlot ? 'PENDING_SLOT' : 'NONE';
  const fromMatrix = matrixDecision(ctx, subject, act);
  if (fromMatrix) return fromMatrix;
  const flag = (def: typeof S.executePendingOnAffirm) => readSetting(ctx.snapshot, def);
  if (flag(S.executePendingOnAffirm) && pendingAction && act === 'AFFIRM') return 'EXECUTE_PENDING_ACTION';
  if (flag(S.rejectPendingOnNegate) && pendingAction && act === 'NEGATE') return 'REJECT_PENDING_ACTION';
  if (flag(S.fillPendingSlotOnNonNewRequest) && pendingSlot && act !== 'NEW_REQUEST' && act !== 'GREETING')
    return 'FILL_PENDING_SLOT';
  return 'RECLASSIFY_INTENT';
}

/** What this message means for pending work (§5.7); any decision but RECLASSIFY_INTENT skips intent resolution. */
export async function interactionPolicy(ctx: StepContext): Promise<StepOutput> {
  const session = ctx.scope.session;
  const act = currentDialogueAct(session.inputParams[P.dialogueAct]);
  const pendingAction = hasPendingAction(ctx, session);
  const pendingSlot = hasValue(session.context['pending_slot']) || hasValue(session.context['pendingSlot']);
  const contextResolved =
    !readSetting(ctx.snapshot, S.requireResolvedIntentAndState) ||
    (resolved(session.intent) && resolved(session.state));
  const decision = contextResolved ? decide(ctx, act, pendingAction, pendingSlot) : 'RECLASSIFY_INTENT';
  const skip = decision !== 'RECLASSIFY_INTENT';
  session.inputParams[P.policyDecision] = decision;
  session.inputParams[P.skipIntentResolution] = skip;
  ctx.scope.audit('INTERACTION_POLICY_DECIDED', {
    dialogueAct: act,
    policyDecision: decision,
    skipIntentResolution: skip,
    hasPendingAction: pendingAction,
    hasPendingSlot: pendingSlot,
    intent: session.intent,
    state: session.state,
  });
  return ctx.scope.output();
}
