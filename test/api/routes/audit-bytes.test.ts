/**
 * A trail of large audit rows (a long conversation of long messages: the session's context rides in every row's
 * `_meta`) read through the API on a real database: the trace and a page of rows are bounded in bytes as well as
 * rows, measured by the database before the rows are loaded, so the API never holds more than its limit of them.
 */
import { buildApi } from '../../../api/app';
import { conversationQueries } from '../../../api/db-queries';
import { AUDIT_RESPONSE_MAX_BYTES } from '../../../api/routes/conversation';
import { TRACE_MAX_BYTES } from '../../../api/routes/trace';
import { openDatabase, type DbHandle } from '../../../db/pool';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { fakePorts } from '../../support/fake-ports';

const LONG = '00000000-0000-4000-8000-00000000b100';
const HUGE_ROW = '00000000-0000-4000-8000-00000000b200';
const ROWS = 2000;
/** Each row's payload is about 20 KB as JSON: 2000 of them pass the trace's bytes long before its 20000 rows. */
const TEXT_REPEATS = 1700;

/** The payload bytes (as JSON) of the audit rows the database sent the API: what it loaded into memory. */
function countLoadedPayloads(handle: DbHandle) {
  const loaded = { bytes: 0 };
  const query = handle.pool.query.bind(handle.pool) as (...args: unknown[]) => Promise<{ rows: unknown[] }>;
  (handle.pool as unknown as { query: unknown }).query = async (...args: unknown[]) => {
    const result = await query(...args);
    for (const row of result.rows as { payload_json?: unknown }[]) {
      if (row.payload_json != null) loaded.bytes += Buffer.byteLength(JSON.stringify(row.payload_json));
    }
    return result;
  };
  return loaded;
}

describe('audit reads bounded in bytes (api/routes/trace.ts, api/routes/conversation.ts)', () => {
  let tdb: TestDatabase;
  let handle: DbHandle;
  let app: ReturnType<typeof buildApi>;
  let loaded: { bytes: number };

  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(
      "INSERT INTO ce_conversation (conversation_id, turn_count, status) VALUES ($1, 1, 'RUNNING'), ($2, 1, 'RUNNING')",
      [LONG, HUGE_ROW]
    );
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
       SELECT $1::uuid, 1 + r / 100, 'VERBOSE_PROGRESS', jsonb_build_object('text', repeat('bigtopic001 ', $3::int)),
              'long/' || r
         FROM generate_series(1, $2::int) r ORDER BY r`,
      [LONG, ROWS, TEXT_REPEATS]
    );
    // A small row, one larger than a whole page, a small one.
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
       SELECT $1::uuid, 1, 'VERBOSE_PROGRESS', jsonb_build_object('text', repeat('x', CASE r WHEN 2 THEN $2::int ELSE 10 END)),
              'huge/' || r
         FROM generate_series(1, 3) r ORDER BY r`,
      [HUGE_ROW, AUDIT_RESPONSE_MAX_BYTES + 1000]
    );
    handle = openDatabase(tdb.url, { max: 4, connectionTimeoutMillis: 2_000 });
    loaded = countLoadedPayloads(handle);
    app = buildApi({
      ports: { ...fakePorts({}), conversations: conversationQueries(handle.db) },
      messageMaxBytes: 8192,
      logLevel: 'silent',
    });
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await handle?.close();
    await tdb?.drop();
  });

  /** Every page from the first by its Link header: each page's ids and body bytes, and what was loaded for it. */
  async function readAllPages(id: string) {
    const pages: { ids: number[]; bodyBytes: number; loadedBytes: number }[] = [];
    let url: string | null = `/api/v1/conversation/audit/${id}`;
    while (url) {
      loaded.bytes = 0;
      const res: Awaited<ReturnType<typeof app.inject>> = await app.inject({ url });
      expect(res.statusCode).toBe(200);
      const ids = (res.json() as { auditId: number }[]).map((r) => r.auditId);
      pages.push({ ids, bodyBytes: res.rawPayload.length, loadedBytes: loaded.bytes });
      url = /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
    }
    return pages;
  }

  it('answers a trace past its bytes (below its rows) 422 TRACE_TOO_LARGE with the sizes, loading no more', async () => {
    loaded.bytes = 0;
    const res = await app.inject({ url: `/api/v1/conversation/audit/${LONG}/trace` });
    expect(res.statusCode).toBe(422);
    const error = res.json().error;
    expect(error.code).toBe('TRACE_TOO_LARGE');
    expect(error.message).toContain(`more than ${TRACE_MAX_BYTES} bytes of payload`);
    expect(error.message).toContain(`read them in pages from GET /api/v1/conversation/audit/${LONG}.`);
    expect(error.details).toEqual({
      maxRows: 20_000,
      maxBytes: TRACE_MAX_BYTES,
      rowsRead: expect.any(Number),
      bytesRead: expect.any(Number),
    });
    expect(error.details.rowsRead).toBeLessThan(ROWS);
    expect(error.details.bytesRead).toBeLessThanOrEqual(TRACE_MAX_BYTES);
    // The rows past the limit were measured in the database, never sent.
    expect(loaded.bytes).toBeLessThanOrEqual(TRACE_MAX_BYTES);
    // Measured as PostgreSQL writes jsonb as text (a space after each colon and comma): never less than JSON.
    expect(loaded.bytes).toBeLessThanOrEqual(error.details.bytesRead);
    expect(loaded.bytes).toBeGreaterThan(TRACE_MAX_BYTES - 2 * 20_500);
  });

  it('ends a page of large rows at its bytes with a Link to the next, and the pages cover the trail once', async () => {
    const pages = await readAllPages(LONG);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      expect(page.loadedBytes).toBeLessThanOrEqual(AUDIT_RESPONSE_MAX_BYTES);
      // The body is the payloads and each row's few fields.
      expect(page.bodyBytes).toBeLessThan(AUDIT_RESPONSE_MAX_BYTES + page.ids.length * 300);
    }
    const ids = pages.flatMap((p) => p.ids);
    expect(ids).toHaveLength(ROWS);
    expect(new Set(ids).size).toBe(ROWS);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('pages past a row larger than a whole page: that row alone, then on', async () => {
    const pages = await readAllPages(HUGE_ROW);
    expect(pages.map((p) => p.ids.length)).toEqual([1, 1, 1]);
    expect(pages[1]?.loadedBytes).toBeGreaterThan(AUDIT_RESPONSE_MAX_BYTES);
    const trace = await app.inject({ url: `/api/v1/conversation/audit/${HUGE_ROW}/trace` });
    expect(trace.statusCode).toBe(200);
    expect(trace.json().stages).toHaveLength(3);
  });
});
