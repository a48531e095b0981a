import type { Histogram } from 'prom-client';
import type { TurnGateway, TurnReply } from '../api/ports';

/** Turn latency as callers see it, by reply kind; a thrown error (timeout, conflict) counts as ERROR. */
export function meteredTurnGateway(gateway: TurnGateway, turnDuration: Histogram<'outcome'>): TurnGateway {
  const timed = async (work: () => Promise<TurnReply>): Promise<TurnReply> => {
    const stop = turnDuration.startTimer();
    try {
      const reply = await work();
      stop({ outcome: reply.kind });
      return reply;
    } catch (err) {
      stop({ outcome: 'ERROR' });
      throw err;
    }
  };
  return {
    sendMessage: (request) => timed(() => gateway.sendMessage(request)),
    decideApproval: (conversationId, turnNumber, approve, reason) =>
      timed(() => gateway.decideApproval(conversationId, turnNumber, approve, reason)),
    retryTurn: (workflowId) => timed(() => gateway.retryTurn(workflowId)),
  };
}
