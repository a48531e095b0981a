/**
 * Whether an approval is still pending is not judged by this host's clock alone (api/pending-approval.ts): the
 * workflow computed the call's expiry on Temporal's clock, so an API host ahead of it by minutes still shows a call
 * whose turn waits on it, and the trail's own _EXPIRED row ends it whatever the clock.
 */
import { conversationQueries } from '../../api/db-queries';
import { PENDING_EXPIRY_MARGIN_MS } from '../../api/pending-approval';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ID = '00000000-0000-4000-8000-00000000fa01';
const EXPIRES_AT = Date.parse('2026-03-01T12:05:00Z');

describe('a pending approval on a skewed API clock (api/pending-approval.ts)', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await tdb.pool.query(
      "INSERT INTO ce_conversation (conversation_id, turn_count, status) VALUES ($1, 0, 'RUNNING')",
      [ID]
    );
    await audit('USER_INPUT', { text: 'submit it' });
    const request = {
      tool_code: 'loan.submit',
      call_index: 1,
      args: {},
      expires_at: new Date(EXPIRES_AT).toISOString(),
    };
    await audit('MCP_TOOL_APPROVAL_REQUESTED', request);
  }, 60_000);
  afterAll(async () => tdb?.drop());

  async function audit(stage: string, payload: object): Promise<void> {
    await tdb.pool.query(
      `INSERT INTO ce_audit (conversation_id, turn_number, stage, payload_json, idempotency_key)
       VALUES ($1, 1, $2, $3, $4)`,
      [ID, stage, JSON.stringify(payload), `turn-${ID}-1@run/${stage}/row`]
    );
  }
  const pendingAt = async (now: number) =>
    (await conversationQueries(tdb.db, undefined, () => new Date(now)).conversation(ID))?.pendingApproval ?? null;

  it('shows the call to an API host 5 min ahead while the turn (by its clock, 4 min before expiry) waits', async () => {
    const temporalNow = EXPIRES_AT - 4 * 60_000;
    expect(await pendingAt(temporalNow + 5 * 60_000)).toMatchObject({ turnNumber: 1, callIndex: 1 });
  });

  it('stops showing a call whose expiry is past by more than the margin, its turn parked without a worker', async () => {
    expect(await pendingAt(EXPIRES_AT + PENDING_EXPIRY_MARGIN_MS - 1_000)).toMatchObject({ callIndex: 1 });
    expect(await pendingAt(EXPIRES_AT + PENDING_EXPIRY_MARGIN_MS)).toBeNull();
  });

  it('stops showing it once the trail says it expired, whatever the clock', async () => {
    await audit('MCP_TOOL_APPROVAL_EXPIRED', { tool_code: 'loan.submit', call_index: 1 });
    expect(await pendingAt(EXPIRES_AT - 60_000)).toBeNull();
  });
});
