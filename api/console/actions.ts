import type { FastifyReply } from 'fastify';
import type { Json, JsonObject } from '../../core/json';
import {
  heldToolDecisionProblem,
  namedApprovalProblem,
  takesResult,
  unwantedResultProblem,
  type HeldToolDecisionAction,
} from '../../core/turn/operator-decision';
import { fieldName } from '../../core/text/unsafe-text';
import { ApiError, badRequest, refuseBlockedTurn, refuseMalformedDecision, validationFailed } from '../errors';
import type { ApiPorts } from '../ports';
import { sendTurnReply } from '../replies';
import { notHeld } from '../turns/held-tools';
import { defaultReplyTexts } from '../reply-texts';
import type { ActivityOperation, ConsolePorts } from './ports';

export interface ActionBody {
  activityId?: string;
  reason?: string;
  /**
   * The call the operator saw, so a decision cannot land on a later one: required by approve and reject
   * (namedApprovalProblem), optional for held-* actions.
   */
  callIndex?: number;
  /** held-mark-done only: the tool's result as verified upstream (any JSON). */
  result?: Json;
}

export type ActionField = keyof ActionBody;

export interface ActionContext {
  workflowId: string;
  conversationId: string;
  turnNumber: number;
  body: ActionBody;
  api: ApiPorts;
  console: ConsolePorts;
  reply: FastifyReply;
}

/**
 * One SRE action of the console. Each runs behind the API token and is audited by the route
 * (an OPERATOR_ACTION row); a new one (e.g. releasing a held turn) is one more entry here.
 */
export interface ConsoleAction {
  name: string;
  summary: string;
  /**
   * The body fields the action uses; the route refuses any other (refuseFieldsNotTaken) and audits only these.
   * Every action takes a reason: the operator's why, which is what its OPERATOR_ACTION row is for.
   */
  takes: readonly ActionField[];
  /** It answers with the turn's reply (sendTurnReply), so its request is a turn request (observability/turn-metrics.ts). */
  answersWithTurn?: true;
  run(ctx: ActionContext): Promise<unknown>;
}

const texts = (ctx: ActionContext) => ctx.api.replyTexts ?? defaultReplyTexts;

function decision(approve: boolean): ConsoleAction {
  return {
    name: approve ? 'approve' : 'reject',
    summary: `${approve ? 'Approve' : 'Reject'} the tool call the turn is waiting on.`,
    takes: ['reason', 'callIndex'],
    answersWithTurn: true,
    async run(ctx) {
      const { reason, callIndex } = ctx.body;
      const decision = {
        decision: approve ? ('approve' as const) : ('reject' as const),
        reason: reason ?? null,
        decidedBy: 'console',
        ...(callIndex !== undefined ? { callIndex } : {}),
      };
      refuseMalformedDecision(namedApprovalProblem(decision));
      const turn = await ctx.api.turns.decideApproval(ctx.conversationId, ctx.turnNumber, decision);
      return sendTurnReply(ctx.reply, turn, texts(ctx));
    },
  };
}

function activityAction(operation: ActivityOperation, summary: string): ConsoleAction {
  return {
    name: `activity-${operation}`,
    summary,
    takes: ['activityId', 'reason'],
    async run(ctx) {
      const activityId = ctx.body.activityId;
      if (!activityId) throw badRequest('ACTIVITY_ID_REQUIRED', 'activityId names the pending activity.');
      await ctx.console.inspector.operateActivity(ctx.workflowId, activityId, operation);
      return { ok: true, action: `activity-${operation}`, workflowId: ctx.workflowId, activityId };
    },
  };
}

/** #22 from the console: the same resolveHeldTool update as the admin route and `convengine sre`. */
function heldAction(name: string, action: HeldToolDecisionAction, summary: string): ConsoleAction {
  return {
    name,
    summary,
    takes: ['callIndex', 'reason', ...(takesResult(action) ? (['result'] as const) : [])],
    async run(ctx) {
      const held = ctx.api.heldTools;
      if (!held) throw new ApiError(501, 'HELD_TOOLS_UNSUPPORTED', 'This API has no held-tool operations.');
      const { reason, callIndex, result } = ctx.body;
      const decision = {
        action,
        decidedBy: 'console',
        reason: reason ?? null,
        ...(callIndex !== undefined ? { callIndex } : {}),
        ...(result !== undefined ? { result } : {}),
      };
      // The turn's validator has the same rules (core/turn/operator-decision.ts); refused here, the 400 comes first.
      refuseMalformedDecision(heldToolDecisionProblem(decision));
      // A turn that has ended cannot take the update at all; say why instead of "not found".
      if (!(await ctx.console.inspector.heldTool(ctx.workflowId))) {
        throw notHeld(ctx.workflowId);
      }
      const ack = await held.resolve(ctx.workflowId, decision);
      return { ...ack, ok: true, action: name, workflowId: ctx.workflowId };
    },
  };
}

export const CONSOLE_ACTIONS: readonly ConsoleAction[] = [
  {
    name: 'retry',
    summary: 'Re-run a failed turn with its original input (the admin retry path).',
    takes: ['reason'],
    answersWithTurn: true,
    async run(ctx) {
      await refuseBlockedTurn(ctx.api.readiness);
      return sendTurnReply(ctx.reply, await ctx.api.turns.retryTurn(ctx.workflowId), texts(ctx));
    },
  },
  decision(true),
  decision(false),
  activityAction('reset', 'Retry a failing activity now: Temporal ResetActivity (attempt 1, unpaused).'),
  activityAction('pause', 'Stop a failing activity from burning attempts: Temporal PauseActivity.'),
  activityAction('unpause', 'Let a paused activity run again: Temporal UnpauseActivity.'),
  heldAction('held-retry', 'retry', 'Run the held tool call again now, with the same idempotency key.'),
  heldAction(
    'held-skip',
    'skip',
    "Let the failure stand, as without a hold: the turn goes on with the tool error (TOOL_ERROR) and answers as its state's response says."
  ),
  heldAction('held-fail', 'fail', 'End the held turn with the failure reply (TOOL_HOLD_FAILED); nothing is committed.'),
  heldAction('held-mark-done', 'markDone', 'The held call did happen upstream: continue with the result you verified.'),
];

/**
 * A field the action does not use would be dropped unheard: refused instead, a result with the code the admin
 * route and the turn's validators give (core/turn/operator-decision.ts), anything else as the schema refuses an
 * unknown property.
 */
export function refuseFieldsNotTaken(action: ConsoleAction, body: ActionBody): void {
  if (!action.takes.includes('result')) refuseMalformedDecision(unwantedResultProblem(action.name, body.result));
  const extra = Object.keys(body).find((field) => !action.takes.includes(field as ActionField));
  if (extra) {
    const details = { in: 'body', field: fieldName('', extra), problem: 'additionalProperties' } as const;
    throw validationFailed(`body.${extra} is not an allowed property for ${action.name}.`, details);
  }
}

/**
 * What the action's OPERATOR_ACTION row keeps of the body: the fields it takes, never another one. markDone's
 * verified result is not among them: the row's `result` is the action's outcome, and the verified result is the
 * turn's (its history and its TOOL_HOLD_RESOLVED row).
 */
export function auditedFields(action: ConsoleAction, body: ActionBody): JsonObject {
  const kept = Object.entries(body).filter(
    ([field]) => field !== 'result' && action.takes.includes(field as ActionField)
  );
  return Object.fromEntries(kept) as JsonObject;
}
