import { buildApi } from '../../../api/app';
import { TRACE_MAX_BYTES } from '../../../api/routes/trace';
import type { AuditRowView } from '../../../api/ports';
import { auditRow, fakePorts, type AuditsOf } from '../../support/fake-ports';

const CONVERSATION = '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const PORT_PAGE = 1000;

/** A conversation with `total` audit rows, ids 1…total, served in the real port's pages of 1000. */
function apiWithAudits(total: number) {
  const reads: number[] = [];
  const asked: number[] = [];
  const audits: AuditsOf = async (_id, after = 0, max = PORT_PAGE) => {
    reads.push(after);
    asked.push(max);
    const count = Math.max(0, Math.min(PORT_PAGE, max, total - after));
    return Array.from({ length: count }, (_, i) => auditRow(CONVERSATION, after + i + 1));
  };
  const ports = fakePorts({ conversationId: CONVERSATION, audits });
  return { app: buildApi({ ports, messageMaxBytes: 8192, logLevel: 'silent' }), reads, asked };
}

const path = (query = '') => `/api/v1/conversation/audit/${CONVERSATION}${query}`;
const ids = (body: string) => (JSON.parse(body) as AuditRowView[]).map((r) => r.auditId);

describe('GET /api/v1/conversation/audit/:id pages (api/routes/conversation.ts)', () => {
  it('answers at most 5000 rows by default and names the next page in a Link header', async () => {
    const { app, reads } = apiWithAudits(7500);
    try {
      const first = await app.inject({ method: 'GET', url: path() });
      expect(first.statusCode).toBe(200);
      expect(ids(first.body)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
      expect(first.headers['link']).toBe(
        `</api/v1/conversation/audit/${CONVERSATION}?after=5000&limit=5000>; rel="next"`
      );
      // Read in the port's pages: the rows after the limit are read once, to know that more follow.
      expect(reads).toEqual([0, 1000, 2000, 3000, 4000, 5000]);

      const next = await app.inject({ method: 'GET', url: path('?after=5000&limit=5000') });
      expect(ids(next.body)).toEqual(Array.from({ length: 2500 }, (_, i) => 5001 + i));
      expect(next.headers['link']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('pages by a smaller limit, says nothing when the last page is full, and keeps short trails whole', async () => {
    const { app, asked } = apiWithAudits(2000);
    try {
      const small = await app.inject({ method: 'GET', url: path('?limit=3&after=10') });
      expect(ids(small.body)).toEqual([11, 12, 13]);
      // Three rows wanted, and one more to know that more follow: the port is never asked for a whole page.
      expect(asked).toEqual([4]);
      expect(small.headers['link']).toBe(`</api/v1/conversation/audit/${CONVERSATION}?after=13&limit=3>; rel="next"`);
      const exact = await app.inject({ method: 'GET', url: path('?limit=1000&after=1000') });
      expect(ids(exact.body)).toHaveLength(1000);
      expect(exact.headers['link']).toBeUndefined();
      const whole = await app.inject({ method: 'GET', url: path() });
      expect(ids(whole.body)).toHaveLength(2000);
      expect(whole.headers['link']).toBeUndefined();
    } finally {
      await app.close();
    }
  });

  it('traces a trail of up to 20000 rows, and answers a longer one 422 TRACE_TOO_LARGE without building it', async () => {
    const trace = `/api/v1/conversation/audit/${CONVERSATION}/trace`;
    const fits = apiWithAudits(20_000);
    try {
      const res = await fits.app.inject({ method: 'GET', url: trace });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ conversationId: CONVERSATION });
    } finally {
      await fits.app.close();
    }
    const long = apiWithAudits(20_001);
    try {
      const res = await long.app.inject({ method: 'GET', url: trace });
      expect(res.statusCode).toBe(422);
      expect(res.json().error).toEqual({
        code: 'TRACE_TOO_LARGE',
        message:
          'The conversation has more than 20000 audit rows, more than one trace covers; ' +
          `read them in pages from GET /api/v1/conversation/audit/${CONVERSATION}.`,
        // The rows read (the one past the limit included, `{}` each) and the limits.
        details: { maxRows: 20_000, maxBytes: TRACE_MAX_BYTES, rowsRead: 20_000, bytesRead: 2 * 20_001 },
      });
      expect(long.reads.at(-1)).toBe(20_000);
    } finally {
      await long.app.close();
    }
  });

  it('refuses a limit or cursor out of range with 400', async () => {
    const { app, reads } = apiWithAudits(10);
    try {
      for (const query of ['?limit=0', '?limit=5001', '?limit=abc', '?after=-1', '?after=1e3', '?page=2']) {
        const res = await app.inject({ method: 'GET', url: path(query) });
        expect({ query, status: res.statusCode, code: res.json().error.code }).toEqual({
          query,
          status: 400,
          code: 'VALIDATION_FAILED',
        });
      }
      expect(reads).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
