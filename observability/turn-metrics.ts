import type { Histogram } from 'prom-client';
import { ApiError } from '../api/errors';
import type { TurnGateway, TurnReply } from '../api/ports';

/**
 * Turn latency as callers see it, by reply kind; a thrown server-side error (a timeout, Temporal unreachable)
 * counts as ERROR. A request refused before any turn ran (a 4xx: a stale approval, a turn already running) is
 * not a turn and is not counted.
 */
export function meteredTurnGateway(gateway: TurnGateway, turnDuration: Histogram<'outcome'>): TurnGateway {
  const timed = async (work: () => Promise<TurnReply>): Promise<TurnReply> => {
    const stop = turnDuration.startTimer();
    try {
      const reply = await work();
      stop({ outcome: reply.kind });
      return reply;
    } catch (err) {
      if (!(err instanceof ApiError && err.statusCode < 500)) stop({ outcome: 'ERROR' });
      throw err;
    }
  };
  return {
    sendMessage: (request) => timed(() => gateway.sendMessage(request)),
    decideApproval: (conversationId, turnNumber, decision) =>
      timed(() => gateway.decideApproval(conversationId, turnNumber, decision)),
    retryTurn: (workflowId) => timed(() => gateway.retryTurn(workflowId)),
  };
}
