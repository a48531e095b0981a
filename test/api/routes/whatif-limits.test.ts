import type { FastifyInstance } from 'fastify';
import { WhatifInputError } from '../../../activities/whatif/draft';
import { buildApi } from '../../../api/app';
import type { WhatifQueries } from '../../../api/ports';
import { loadEnv } from '../../../config/env';
import type { ConversationWhatifResult } from '../../../core/whatif/diff';
import { createApiMetrics, type ApiMetrics } from '../../../observability/metrics';
import { fakePorts } from '../../support/fake-ports';
import { parseMetrics, sumOf } from '../../support/prometheus-text';

const TOKEN = 'limits-token';
const CONVERSATION = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';

/** A replay the test finishes by hand, so that replays can be held in flight. */
interface HeldReplay {
  maxTurns: number;
  finish(): void;
  fail(err: Error): void;
}

function heldWhatif(): { whatif: WhatifQueries; held: HeldReplay[] } {
  const held: HeldReplay[] = [];
  const whatif: WhatifQueries = {
    conversation: (conversationId, configVersion, { maxTurns }) =>
      new Promise<ConversationWhatifResult>((resolve, reject) => {
        const result = { conversationId, configVersion: '0123456789abcdef', turns: [] };
        held.push({ maxTurns, finish: () => resolve(result), fail: reject });
      }),
  };
  return { whatif, held };
}

function apiWith(
  whatif: WhatifQueries,
  limits?: { concurrency: number; maxTurns: number },
  metrics?: ApiMetrics
): FastifyInstance {
  const ports = fakePorts({ whatif });
  return buildApi({
    ports,
    apiToken: TOKEN,
    messageMaxBytes: 8192,
    logLevel: 'silent',
    ...(limits ? { whatifLimits: limits } : {}),
    ...(metrics ? { limitMetrics: { inUse: metrics.limitInUse, refused: metrics.limitRefused } } : {}),
  });
}

const get = (app: FastifyInstance) =>
  app.inject({
    method: 'GET',
    url: `/api/v1/whatif?conversation=${CONVERSATION}&config=current`,
    headers: { authorization: `Bearer ${TOKEN}` },
  });

/** Waits until `count` replays are held: the injected requests have reached the handler. */
async function heldCount(replays: HeldReplay[], count: number): Promise<void> {
  for (let i = 0; i < 500 && replays.length < count; i++) await new Promise((resolve) => setTimeout(resolve, 2));
  expect(replays).toHaveLength(count);
}

describe('GET /api/v1/whatif limits (api/routes/whatif.ts)', () => {
  it('refuses a replay beyond the concurrency with 429 WHATIF_BUSY and Retry-After, and frees the slot after', async () => {
    const { whatif, held } = heldWhatif();
    const metrics = createApiMetrics();
    const limit = async (name: string) =>
      sumOf(parseMetrics(await metrics.registry.metrics()), name, { limit: 'whatif' });
    const app = apiWith(whatif, { concurrency: 2, maxTurns: 7 }, metrics);
    try {
      const first = get(app);
      const second = get(app);
      await heldCount(held, 2);
      expect(held.map((h) => h.maxTurns)).toEqual([7, 7]);

      const busy = await get(app);
      expect(busy.statusCode).toBe(429);
      expect(busy.headers['retry-after']).toBe('5');
      expect(busy.json()).toEqual({
        error: {
          code: 'WHATIF_BUSY',
          message: '2 what-if replays are already running here (at most 2); try again shortly.',
        },
      });
      expect(held).toHaveLength(2);
      expect([await limit('convengine_api_limit_in_use'), await limit('convengine_api_limit_refused_total')]).toEqual([
        2, 1,
      ]);

      held[0]?.finish();
      held[1]?.fail(new Error('connection to the database lost'));
      expect((await first).statusCode).toBe(200);
      expect((await second).statusCode).toBe(500);

      // Both slots are free again, the failed replay's too.
      const third = get(app);
      const fourth = get(app);
      await heldCount(held, 4);
      held[2]?.finish();
      held[3]?.finish();
      expect([(await third).statusCode, (await fourth).statusCode]).toEqual([200, 200]);
      expect(await limit('convengine_api_limit_in_use')).toBe(0);
    } finally {
      await app.close();
    }
  });

  // Without limits, buildApi bounds replays as an unset WHATIF_CONCURRENCY and WHATIF_MAX_TURNS do: one default.
  it('answers a conversation over the turn bound 422 CONVERSATION_TOO_LONG; defaults to the environment defaults', async () => {
    const { WHATIF_CONCURRENCY: concurrency, WHATIF_MAX_TURNS: maxTurns } = loadEnv({});
    const tooLong: WhatifQueries = {
      conversation: async (id, _version, limits) => {
        throw new WhatifInputError(
          'CONVERSATION_TOO_LONG',
          `conversation ${id} has ${limits.maxTurns + 1} recorded turns, max ${limits.maxTurns}`
        );
      },
    };
    const app = apiWith(tooLong);
    try {
      const refused = await get(app);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toEqual({
        error: {
          code: 'CONVERSATION_TOO_LONG',
          message: `conversation ${CONVERSATION} has ${maxTurns + 1} recorded turns, max ${maxTurns}`,
        },
      });
    } finally {
      await app.close();
    }
    const { whatif, held } = heldWhatif();
    const defaults = apiWith(whatif);
    try {
      const running = Array.from({ length: concurrency }, () => get(defaults));
      await heldCount(held, concurrency);
      expect((await get(defaults)).statusCode).toBe(429);
      for (const h of held) h.finish();
      expect((await Promise.all(running)).map((r) => r.statusCode)).toEqual(Array(concurrency).fill(200));
    } finally {
      await defaults.close();
    }
  });
});
