/**
 * grpc.health.v1.Health, as the real frontend serves it: `convengine setup-temporal` (and a load
 * balancer or Kubernetes probe) checks it before anything else, and UNIMPLEMENTED there read as a
 * server that never came up.
 */
import { DevServerError } from '../errors';
import type { Message } from '../proto/types';
import type { RpcHandler } from '../grpc/service';

/** grpc.health.v1.HealthCheckResponse.ServingStatus: SERVING, NOT_SERVING */
const SERVING = 1;
const NOT_SERVING = 2;

/** "" (the server as a whole) and each service this server implements. */
export const HEALTH_CHECKED_SERVICES: readonly string[] = [
  '',
  'temporal.api.workflowservice.v1.WorkflowService',
  'temporal.api.operatorservice.v1.OperatorService',
];

/**
 * Check only: Watch is a server stream, which buildService's unary handlers cannot answer (UNIMPLEMENTED).
 * `serving` is false while the server refuses calls (its journal cannot be written): NOT_SERVING then.
 */
export function healthHandlers(serving: () => boolean = () => true): Record<string, RpcHandler> {
  const check = (request: Message): Message => {
    const service = typeof request.service === 'string' ? request.service : '';
    // What grpc's own health server answers for a service it has never heard of.
    if (!HEALTH_CHECKED_SERVICES.includes(service)) throw new DevServerError('NOT_FOUND', 'unknown service');
    return { status: serving() ? SERVING : NOT_SERVING };
  };
  return { Check: check };
}
