import { buildApi } from '../../../../api/app';
import type { ConversationPage, ConversationSearch } from '../../../../api/console/ports';
import { fakeConsolePorts, fakePorts } from '../../../support/fake-ports';

const LAST = '6f1d2c3b-4a59-4e8f-9a0b-1c2d3e4f5a6b';
const CURSOR = `1772359200100000_${LAST}`;

/** The console's list route over a port that records each search and answers one conversation and `next`. */
function listApi(next: ConversationPage['next'], answered: Partial<ConversationPage> = {}) {
  const searches: ConversationSearch[] = [];
  const item = { conversationId: LAST, status: 'RUNNING', intent: 'I', state: 'S', turnCount: 1 };
  const console = fakeConsolePorts({
    searchConversations: async (search) => {
      searches.push(search);
      const summary = { ...item, lastUserText: null, configVersion: null, updatedAt: '2026-03-01T10:00:00.100Z' };
      return { items: [summary], total: 7, next, ...answered };
    },
  });
  return { app: buildApi({ ports: fakePorts({}), console, messageMaxBytes: 8192, logLevel: 'silent' }), searches };
}

/** The list route's answer to `query`, with the searches it ran (none when it refused the query). */
async function listAnswer(query: string) {
  const { app, searches } = listApi(null);
  try {
    const res = await app.inject({ method: 'GET', url: `/api/v1/console/conversations?${query}` });
    return { status: res.statusCode, body: res.json(), searches };
  } finally {
    await app.close();
  }
}

describe('GET /api/v1/console/conversations pages by cursor (api/routes/console/conversations.ts)', () => {
  it('names the next page in `next` and a Link header that keeps the filters, as the audit pages do', async () => {
    const { app, searches } = listApi({ updatedAtMicros: '1772359200100000', conversationId: LAST });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/console/conversations?q=my%20order&status=RUNNING' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ total: 7, limit: 25, next: CURSOR });
      expect(res.headers['link']).toBe(
        `</api/v1/console/conversations?q=my+order&status=RUNNING&limit=25&after=${CURSOR}>; rel="next"`
      );
      const following = await app.inject({
        method: 'GET',
        url: `/api/v1/console/conversations?limit=5&after=${CURSOR}`,
      });
      expect(following.statusCode).toBe(200);
      expect(searches.at(-1)).toEqual({
        limit: 5,
        after: { updatedAtMicros: '1772359200100000', conversationId: LAST },
      });
    } finally {
      await app.close();
    }
  });

  it('sends no Link and a null `next` on the last page', async () => {
    const { app } = listApi(null);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/console/conversations' });
      expect([res.statusCode, res.json().next, res.headers['link']]).toEqual([200, null, undefined]);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['offset=25', 'querystring.offset is not an allowed property.'],
    ['after=25', 'querystring/after must match pattern'],
    [`after=x${CURSOR}`, 'querystring/after must match pattern'],
    [`after=${CURSOR.replace('_', '.')}`, 'querystring/after must match pattern'],
  ])('refuses %s with 400 VALIDATION_FAILED before searching', async (query, message) => {
    const { status, body, searches } = await listAnswer(query);
    expect([status, body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(body.error.message).toContain(message);
    expect(searches).toEqual([]);
  });

  it('documents `after` and `next`, and no `offset`', async () => {
    const { app } = listApi(null);
    try {
      const doc = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
      const op = doc.paths['/api/v1/console/conversations'].get;
      expect(op.parameters.map((p: { name: string }) => p.name)).toEqual([
        'q',
        'status',
        'intent',
        'state',
        'limit',
        'after',
      ]);
      const page = op.responses['200'].content['application/json'].schema;
      expect(Object.keys(page.properties)).toEqual([
        'items',
        'total',
        'totalCapped',
        'limit',
        'next',
        'parkedStatusUnknown',
        'awaitingApprovalUnknown',
      ]);
      expect(page.properties.awaitingApprovalUnknown.deprecated).toBe(true);
      expect(page.properties.parkedStatusUnknown.deprecated).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('GET /api/v1/console/conversations when parked conversations are unknown', () => {
  it('says parkedStatusUnknown, and awaitingApprovalUnknown (deprecated) for v1 clients', async () => {
    const { app } = listApi(null, { parkedUnknown: true });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/v1/console/conversations' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ parkedStatusUnknown: true, awaitingApprovalUnknown: true });
    } finally {
      await app.close();
    }
  });

  it('sends neither when they are known', async () => {
    const { app } = listApi(null);
    try {
      const body = (await app.inject({ method: 'GET', url: '/api/v1/console/conversations' })).json();
      expect([body.parkedStatusUnknown, body.awaitingApprovalUnknown]).toEqual([undefined, undefined]);
    } finally {
      await app.close();
    }
  });
});

describe('a query string that is not UTF-8 once percent-decoded (api/query-text.ts)', () => {
  it.each([
    ['a stray byte', 'q=%ff%fe'],
    ['a truncated sequence', 'q=%e2%82'],
    ['an overlong encoding', 'q=%c0%af'],
    ['an encoded surrogate', 'q=%ed%a0%80'],
    ['a sequence split by &', 'status=RUNNING&q=%e2%82&x=%ac'],
  ])('is 400 INVALID_TEXT naming the parameter, not searched, for %s', async (_what, query) => {
    const { app, searches } = listApi(null);
    try {
      const res = await app.inject({ method: 'GET', url: `/api/v1/console/conversations?${query}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: { code: 'INVALID_TEXT', message: 'The query parameter q is not valid UTF-8.', details: { field: 'q' } },
      });
      expect(searches).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('is refused on any route, naming no parameter whose name is not a plain one', async () => {
    const { app } = listApi(null);
    try {
      const turns = await app.inject({ method: 'GET', url: `/api/v1/console/conversations/${LAST}/turns?x=%80` });
      expect([turns.statusCode, turns.json().error]).toEqual([
        400,
        { code: 'INVALID_TEXT', message: 'The query parameter x is not valid UTF-8.', details: { field: 'x' } },
      ]);
      const named = await app.inject({ method: 'GET', url: `/api/v1/console/conversations?${'a'.repeat(300)}=%ff` });
      expect(named.json().error).toEqual({ code: 'INVALID_TEXT', message: 'A query parameter is not valid UTF-8.' });
      const key = await app.inject({ method: 'GET', url: '/api/v1/console/conversations?%ff=1' });
      expect([key.statusCode, key.json().error.message]).toEqual([400, "A query parameter's name is not valid UTF-8."]);
    } finally {
      await app.close();
    }
  });

  it('still searches UTF-8 text, and a % that escapes nothing as itself', async () => {
    const { app, searches } = listApi(null);
    try {
      for (const q of ['caf%C3%A9+au+lait', '100%', '%zz']) {
        const res = await app.inject({ method: 'GET', url: `/api/v1/console/conversations?q=${q}` });
        expect(res.statusCode).toBe(200);
      }
      expect(searches.map((s) => s.q)).toEqual(['café au lait', '100%', '%zz']);
    } finally {
      await app.close();
    }
  });

  it.each([
    ['caf%C3%A9%20100%', 'café 100%'],
    ['100%25%20off', '100% off'],
    ['%zz%20caf%C3%A9', '%zz café'],
    ['50%+%E2%82%AC%', '50% €%'],
    ['%%41', '%A'],
  ])('decodes every escape of q=%s even beside a %% that escapes nothing, and searches for %j', async (q, text) => {
    const { app, searches } = listApi({ updatedAtMicros: '1772359200100000', conversationId: LAST });
    try {
      const res = await app.inject({ method: 'GET', url: `/api/v1/console/conversations?q=${q}&status=RUNNING` });
      expect(res.statusCode).toBe(200);
      expect(searches).toEqual([expect.objectContaining({ q: text, status: 'RUNNING' })]);
      // The next page's link carries the text searched for, encoded once.
      const link = String(res.headers['link']);
      expect(new URLSearchParams(link.slice(link.indexOf('?'), link.indexOf('>'))).get('q')).toBe(text);
    } finally {
      await app.close();
    }
  });

  it("keeps the parser's shape: a repeated name is refused by the schema, a name without = is empty", async () => {
    const { app, searches } = listApi(null);
    try {
      const twice = await app.inject({ method: 'GET', url: '/api/v1/console/conversations?q=a%25&q=b' });
      expect([twice.statusCode, twice.json().error.code]).toEqual([400, 'VALIDATION_FAILED']);
      const bare = await app.inject({ method: 'GET', url: '/api/v1/console/conversations?q&&intent=LOAN%5F1' });
      expect(bare.statusCode).toBe(200);
      expect(searches).toEqual([expect.objectContaining({ q: '', intent: 'LOAN_1' })]);
    } finally {
      await app.close();
    }
  });

  it('takes an intent or state in any case with spaces around it', async () => {
    const { app, searches } = listApi(null);
    try {
      const spaced = await app.inject({
        method: 'GET',
        url: '/api/v1/console/conversations?intent=%20faq%20&state=Review+',
      });
      expect(spaced.statusCode).toBe(200);
      expect(searches).toEqual([expect.objectContaining({ intent: ' faq ', state: 'Review ' })]);
    } finally {
      await app.close();
    }
  });
});

describe('the intent and state filters take any code config validation takes', () => {
  it.each([
    ['state', 'straße_zustand'],
    ['state', 'istanbul_çıkış'],
    ['intent', 'A B'],
    ['intent', ' faq\t'],
  ])('searches %s=%j as it was sent', async (filter, value) => {
    const { status, searches } = await listAnswer(`${filter}=${encodeURIComponent(value)}`);
    expect(status).toBe(200);
    expect(searches).toEqual([expect.objectContaining({ [filter]: value })]);
  });

  it.each([
    ['a blank code', 'state=%20%09', 'VALIDATION_FAILED'],
    ['an empty code', 'intent=', 'VALIDATION_FAILED'],
    ['a control character', 'state=A%07B', 'INVALID_TEXT'],
    ['a code over 100 characters', `intent=${'A'.repeat(101)}`, 'VALIDATION_FAILED'],
  ])('refuses %s, as config validation does, before searching', async (_what, query, code) => {
    const { status, body, searches } = await listAnswer(query);
    expect([status, body.error.code]).toEqual([400, code]);
    expect(searches).toEqual([]);
  });
});
