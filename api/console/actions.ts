import type { FastifyReply } from 'fastify';
import { badRequest } from '../errors';
import type { ApiPorts } from '../ports';
import { sendTurnReply } from '../replies';
import { defaultReplyTexts } from '../reply-texts';
import type { ActivityOperation, ConsolePorts } from './ports';

export interface ActionBody {
  activityId?: string;
  reason?: string;
}

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
  run(ctx: ActionContext): Promise<unknown>;
}

const texts = (ctx: ActionContext) => ctx.api.replyTexts ?? defaultReplyTexts;

function decision(approve: boolean): ConsoleAction {
  return {
    name: approve ? 'approve' : 'reject',
    summary: `${approve ? 'Approve' : 'Reject'} the tool call the turn is waiting on.`,
    async run(ctx) {
      const turn = await ctx.api.turns.decideApproval(
        ctx.conversationId,
        ctx.turnNumber,
        approve,
        ctx.body.reason ?? null
      );
      return sendTurnReply(ctx.reply, turn, texts(ctx));
    },
  };
}

function activityAction(operation: ActivityOperation, summary: string): ConsoleAction {
  return {
    name: `activity-${operation}`,
    summary,
    async run(ctx) {
      const activityId = ctx.body.activityId;
      if (!activityId) throw badRequest('ACTIVITY_ID_REQUIRED', 'activityId names the pending activity.');
      await ctx.console.inspector.operateActivity(ctx.workflowId, activityId, operation);
      return { ok: true, action: `activity-${operation}`, workflowId: ctx.workflowId, activityId };
    },
  };
}

export const CONSOLE_ACTIONS: readonly ConsoleAction[] = [
  {
    name: 'retry',
    summary: 'Re-run a failed turn with its original input (the admin retry path).',
    async run(ctx) {
      return sendTurnReply(ctx.reply, await ctx.api.turns.retryTurn(ctx.workflowId), texts(ctx));
    },
  },
  decision(true),
  decision(false),
  activityAction('reset', 'Retry a failing activity now: Temporal ResetActivity (attempt 1, unpaused).'),
  activityAction('pause', 'Stop a failing activity from burning attempts: Temporal PauseActivity.'),
  activityAction('unpause', 'Let a paused activity run again: Temporal UnpauseActivity.'),
];
