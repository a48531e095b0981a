import type { FastifyInstance } from 'fastify';
import { CONSOLE_ACTIONS } from '../../console/actions';
import type { ConsolePorts } from '../../console/ports';
import { consoleMetaSchema } from '../../console/schemas';
import { route, type OpenApiRegistry } from '../../openapi';
import type { ApiPorts } from '../../ports';
import { errorSchema } from '../../schemas';
import { turnActionRoute } from './actions';
import { conversationSearchRoute, conversationTurnsRoute } from './conversations';
import { turnViewRoute } from './turn';

/** The turn console's API: conversations, a turn's story from its event history, and audited SRE actions. */
export function consoleRoutes(
  app: FastifyInstance,
  ports: ApiPorts,
  consolePorts: ConsolePorts,
  docs: OpenApiRegistry
) {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/meta',
      summary: 'What the console can do here: actions, Temporal UI link.',
      schema: { response: { 200: consoleMetaSchema, '4xx': errorSchema } },
    },
    async () => ({
      temporalUi: consolePorts.temporalUi,
      actions: CONSOLE_ACTIONS.map(({ name, summary }) => ({ name, summary })),
    })
  );
  conversationSearchRoute(app, consolePorts, docs);
  conversationTurnsRoute(app, ports, consolePorts, docs);
  turnViewRoute(app, ports, consolePorts, docs);
  turnActionRoute(app, ports, consolePorts, docs);
}
