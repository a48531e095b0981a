import { systemClock } from '../../activities/deps';
import type { AuditWrite } from '../../activities/runtime/audit-rows';
import type { writeAudits } from '../../activities/runtime/audit-writer';
import { configuredAuditGate } from '../../activities/runtime/audit-gate';
import { audit } from '../../core/audit';
import { listAudits } from '../../db/repositories/audit';
import { ensureConversation } from '../../db/repositories/conversation';
import { sessionFor, turnInput } from './config-rows';
import { createTestDatabase, type TestDatabase } from './database';

export interface AuditWriterFixture {
  /** Set before the first test of the describe that called useAuditWriterFixture. */
  tdb: TestDatabase;
  deps: Parameters<typeof writeAudits>[0];
  /** Audit write statements sent since the test began. */
  statements: number;
  conversationId: string;
  turn: ReturnType<typeof turnInput>;
  session: ReturnType<typeof sessionFor>;
  /** One write of the turn under `keySegment`, a record per stage. */
  write: (keySegment: string, stages: string[], extra?: Partial<AuditWrite>) => AuditWrite;
  /** `[key below the turn id, stage]` of each stored row under `segment`. */
  rowsUnder: (segment: string) => Promise<string[][]>;
}

/**
 * A test database with one conversation, the audit writer's dependencies on it, and a count of the
 * audit write statements sent (the database itself is the real one). Call it inside a describe.
 */
export function useAuditWriterFixture(): AuditWriterFixture {
  const conversationId = '00000000-0000-4000-8000-0000000000ab';
  const turn = turnInput('hello', { conversationId, turnNumber: 1 });
  const fx = {
    statements: 0,
    conversationId,
    turn,
    session: sessionFor('hello', { conversationId }),
    write: (keySegment, stages, extra = {}) => ({
      turn,
      session: fx.session,
      keySegment,
      records: stages.map((stage) => audit(stage, { at: keySegment })),
      ...extra,
    }),
    rowsUnder: async (segment) =>
      (await listAudits(fx.tdb.db, conversationId))
        .filter((r) => r.idempotencyKey.startsWith(`${turn.turnId}/${segment}/`))
        .map((r) => [r.idempotencyKey.slice(turn.turnId.length + 1), r.stage]),
  } as AuditWriterFixture;
  beforeAll(async () => {
    fx.tdb = await createTestDatabase();
    await ensureConversation(fx.tdb.db, conversationId);
    const client = fx.tdb.db.$client;
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const name = (args[0] as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && name.startsWith('ce_audit_write')) fx.statements += 1;
      return query(...args);
    };
    fx.deps = { db: fx.tdb.db, clock: systemClock, audit: configuredAuditGate(systemClock) };
  });
  afterAll(async () => fx.tdb.drop());
  beforeEach(() => {
    fx.statements = 0;
  });
  return fx;
}
