import type { FastifyInstance } from 'fastify';
import { CONSOLE_ACTIONS } from '../../console/actions';
import type { ConsolePorts } from '../../console/ports';
import { consoleMetaSchema } from '../../console/schemas';
import { route, type OpenApiRegistry } from '../../openapi';
import type { ApiPorts } from '../../ports';
import { turnActionRoute } from './actions';
import { conversationSearchRoute, conversationTurnsRoute } from './conversations';
import { turnViewRoute } from './turn';

/** Registers one console route on `app` and documents it in `docs`; each file here holds one group of them. */
export type ConsoleRoute = (
  app: FastifyInstance,
  ports: ApiPorts,
  consolePorts: ConsolePorts,
  docs: OpenApiRegistry
) => void;

const metaRoute: ConsoleRoute = (app, _ports, consolePorts, docs) => {
  route(
    app,
    docs,
    {
      method: 'GET',
      url: '/api/v1/console/meta',
      summary: 'What the console can do here: actions, Temporal UI link.',
      schema: { response: { 200: consoleMetaSchema } },
    },
    async () => ({
      temporalUi: consolePorts.temporalUi,
      actions: CONSOLE_ACTIONS.map(({ name, summary }) => ({ name, summary })),
    })
  );
};

/** In this order: it is the order of the OpenAPI document's paths. */
const CONSOLE_ROUTES: readonly ConsoleRoute[] = [
  metaRoute,
  conversationSearchRoute,
  conversationTurnsRoute,
  turnViewRoute,
  turnActionRoute,
];

/** The turn console's API: conversations, a turn's story from its event history, and audited SRE actions. */
export const consoleRoutes: ConsoleRoute = (...on) => {
  for (const register of CONSOLE_ROUTES) register(...on);
};
