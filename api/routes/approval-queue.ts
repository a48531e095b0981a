import type { FastifyInstance } from 'fastify';
import { errorResponse } from '../error-responses';
import { route, type OpenApiRegistry } from '../openapi';
import type { ApiPorts } from '../ports';
import { linkNextPage, pagedResponse } from '../replies';
import { APPROVAL_QUEUE_PAGE, approvalQueueQuery, approvalQueueSchema } from '../schemas/approval-queue';
import { TurnOutcomeValue, TurnSearchAttribute } from '../../workflows/search-attributes';

const URL = '/api/v1/admin/turns/awaiting-approval';

/**
 * D16: the approvers' queue, behind the API token like every route: the turns waiting for a tool approval, each with
 * the call it waits on and where to decide it (`decideWith`, the approval route; the console's turn page).
 */
export function approvalQueueRoutes(app: FastifyInstance, ports: ApiPorts, docs: OpenApiRegistry): void {
  const approvals = ports.approvals;
  if (!approvals) return;
  route(
    app,
    docs,
    {
      method: 'GET',
      url: URL,
      summary:
        `Turns waiting for a tool approval (${TurnSearchAttribute.TurnOutcome}=${TurnOutcomeValue.AwaitingApproval}), ` +
        'newest first: each with the call it waits on (tool, callIndex, requestedAt, expiresAt, decideWith). Paged: ' +
        `at most \`limit\` turns (default ${APPROVAL_QUEUE_PAGE}); \`next\` (and a \`Link: <…>; rel="next"\` header) ` +
        'names the next page, null on the last.',
      schema: {
        querystring: approvalQueueQuery,
        response: {
          200: pagedResponse(approvalQueueSchema),
          400: errorResponse(
            "INVALID_CURSOR: `after` is not a page's `next` as this list gave it; VALIDATION_FAILED: a `limit` " +
              'outside 1 to 100, or an unknown parameter'
          ),
        },
      },
    },
    async (request, reply) => {
      const query = request.query as { limit?: string; after?: string };
      const limit = Number(query.limit ?? APPROVAL_QUEUE_PAGE);
      const { turns, next } = await approvals.list({ limit, ...(query.after ? { after: query.after } : {}) });
      if (next) linkNextPage(reply, URL, { limit: String(limit), after: next });
      return { turns, limit, next };
    }
  );
}
