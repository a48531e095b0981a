import { buildApi } from '../../../api/app';
import { notFound } from '../../../api/errors';
import type { ApiPorts } from '../../../api/ports';
import { fakeConsolePorts, fakePorts } from '../../support/fake-ports';

const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';

/** Every route that names a turn, over ports that record the turn id reaching them and find no such turn. */
function turnApi() {
  const reached: string[] = [];
  const noTurn = async (workflowId: string) => {
    reached.push(workflowId);
    throw notFound('TURN_NOT_FOUND', `No turn ${workflowId}.`);
  };
  const ports: ApiPorts = {
    ...fakePorts({}),
    turns: { ...fakePorts({}).turns, retryTurn: noTurn },
    heldTools: { list: async () => [], resolve: noTurn },
  };
  const console = fakeConsolePorts({ inspector: { history: async (workflowId) => (reached.push(workflowId), null) } });
  const app = buildApi({ ports, console, messageMaxBytes: 8192, logLevel: 'silent' });
  return { app, reached };
}

const ROUTES: [string, 'GET' | 'POST', (id: string) => string, object | undefined][] = [
  ['admin retry', 'POST', (id) => `/api/v1/admin/turns/${id}/retry`, undefined],
  ['admin held-tool', 'POST', (id) => `/api/v1/admin/turns/${id}/held-tool`, { action: 'skip' }],
  ['console turn', 'GET', (id) => `/api/v1/console/turns/${id}`, undefined],
  ['console action', 'POST', (id) => `/api/v1/console/turns/${id}/actions/retry`, {}],
];

const MALFORMED = [
  `turn-${CONVERSATION}-99999999999999999999`,
  `turn-${CONVERSATION}-1000000000`,
  `turn-${CONVERSATION}-007`,
  `turn-${CONVERSATION}-0`,
  `turn-${CONVERSATION}-`,
  `TURN-${CONVERSATION}-1`,
  `turn-${CONVERSATION.replace(/-/g, '')}----1`,
  'not-a-turn',
  'turn-"x"-1',
];

describe('one turn id on every route that names a turn (api/turns/turn-id.ts)', () => {
  const { app, reached } = turnApi();
  afterAll(async () => app.close());
  afterEach(() => reached.splice(0));

  describe.each(ROUTES)('%s', (name, method, url, payload) => {
    it.each(MALFORMED)('refuses %s with 400 INVALID_TURN_ID quoting it as sent', async (id) => {
      const res = await app.inject({ method, url: url(encodeURIComponent(id)), ...(payload ? { payload } : {}) });
      expect([res.statusCode, res.json()]).toEqual([
        400,
        {
          error: {
            code: 'INVALID_TURN_ID',
            message: `${JSON.stringify(id)} is not a turn id: turn-<conversation id>-<turn number, 1 to 999999999>.`,
          },
        },
      ]);
      expect(reached).toEqual([]);
    });

    it('takes the largest turn number and a UUID in either case, asks for the turn as the workflow is named, and names it as sent', async () => {
      for (const [sent, named] of [
        [`turn-${CONVERSATION.toUpperCase()}-999999999`, `turn-${CONVERSATION}-999999999`],
        [`turn-${CONVERSATION.slice(0, 9)}${CONVERSATION.slice(9).toUpperCase()}-12`, `turn-${CONVERSATION}-12`],
        [`turn-${CONVERSATION}-12`, `turn-${CONVERSATION}-12`],
      ]) {
        const res = await app.inject({ method, url: url(sent as string), ...(payload ? { payload } : {}) });
        expect([res.statusCode, res.json()]).toEqual([
          404,
          { error: { code: 'TURN_NOT_FOUND', message: `No turn ${sent}.` } },
        ]);
        // The console action finds no conversation (fakePorts has none) before it reaches a turn port.
        expect(reached.splice(0)).toEqual(name === 'console action' ? [] : [named]);
      }
    });
  });

  it('documents the one pattern on every route that names a turn', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const patterns = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!path.includes('{workflowId}')) continue;
      for (const op of Object.values(operations) as { parameters: { name: string; schema: { pattern: string } }[] }[]) {
        patterns.add(op.parameters.find((p) => p.name === 'workflowId')?.schema.pattern ?? 'none');
      }
    }
    expect([...patterns]).toEqual([
      '^turn-([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})-([1-9][0-9]{0,8})$',
    ]);
  });
});
