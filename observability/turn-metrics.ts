import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Histogram } from 'prom-client';
import type { TurnReply } from '../api/ports';

/** Whether a request to a route is a turn request: its answer is a turn's reply, or a failure to give one. */
export type TurnRequestTest = (request: FastifyRequest) => boolean;

declare module 'fastify' {
  /** A turn route's config: api/openapi.ts's `route` sets it from the route's `turnRequest`. */
  interface FastifyContextConfig {
    turnRequest?: TurnRequestTest;
  }
}

/** The outcome of the turn a reply answers with, told by sendTurnReply just before it sends. */
const answeredTurns = new WeakMap<FastifyReply, TurnReply['kind']>();
/** Replies already counted: an onSend hook failing after this one sends the error answer through onSend again. */
const counted = new WeakSet<FastifyReply>();

/** sendTurnReply's word that `reply` answers with a turn of this outcome (api/replies.ts). */
export function noteTurnAnswer(reply: FastifyReply, kind: TurnReply['kind']): void {
  answeredTurns.set(reply, kind);
}

/**
 * What a turn request's answer counts as: the outcome of the turn it answers with, ERROR when it is a 5xx without one
 * (a timeout, Temporal or the database unreachable, the prerequisite check or a stopping API refusing it), or nothing:
 * a request refused with a 4xx (a stale approval, a turn already running, a malformed body) is no turn.
 */
export function turnOutcome(kind: TurnReply['kind'] | undefined, statusCode: number): string | null {
  if (kind !== undefined) return kind;
  return statusCode >= 500 ? 'ERROR' : null;
}

/**
 * Turn latency as callers see it, from the request to its answer, by outcome (turnOutcome). One place decides, as
 * the answer is sent: every turn request, whatever refused or ended it, is counted once. onSend runs even when
 * the caller has gone meanwhile, where onResponse would not (no response finishes on a closed socket).
 */
export function installTurnMetrics(app: FastifyInstance, turnDuration: Histogram<'outcome'>): void {
  app.addHook('onSend', async (request, reply) => {
    const isTurnRequest = request.routeOptions.config?.turnRequest;
    if (!isTurnRequest?.(request) || counted.has(reply)) return;
    const outcome = turnOutcome(answeredTurns.get(reply), reply.statusCode);
    if (outcome === null) return;
    counted.add(reply);
    turnDuration.observe({ outcome }, reply.elapsedTime / 1000);
  });
}
