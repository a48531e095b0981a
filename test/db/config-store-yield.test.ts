import type * as RuleChecks from '../../core/config/validation/rule-checks';
import type * as SchemaChecks from '../../core/config/validation/schema-checks';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed';
import { createTestDatabase, type TestDatabase } from '../support/database';

jest.setTimeout(30_000);

/** Called as an early check (ruleCheckSteps) and a later one (checkSchemas) start. */
const mockCheckStarts = { rules: () => {}, schemas: () => {} };
jest.mock('../../core/config/validation/rule-checks', () => {
  const actual = jest.requireActual<typeof RuleChecks>('../../core/config/validation/rule-checks');
  return {
    ...actual,
    ruleCheckSteps: (...args: Parameters<typeof actual.ruleCheckSteps>) => {
      mockCheckStarts.rules();
      return actual.ruleCheckSteps(...args);
    },
  };
});
jest.mock('../../core/config/validation/schema-checks', () => {
  const actual = jest.requireActual<typeof SchemaChecks>('../../core/config/validation/schema-checks');
  return {
    ...actual,
    checkSchemas: (...args: Parameters<typeof actual.checkSchemas>) => {
      mockCheckStarts.schemas();
      actual.checkSchemas(...args);
    },
  };
});

/**
 * A worker or the API validates new config rows while it serves turns and health checks: validating a large config
 * takes seconds, so the store yields to the event loop between the checks, and nothing waits for the whole of it.
 */
describe('config store reloading', () => {
  let tdb: TestDatabase;
  beforeAll(async () => {
    tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['faq']);
  });
  afterAll(async () => {
    await tdb.drop();
  });

  it('lets other callbacks run between its validation checks when it picks up an edit', async () => {
    let clock = 0;
    const store = createConfigStore(tdb.db, { now: () => clock });
    const before = await store.current();
    await tdb.pool.query("UPDATE ce_response SET exact_text = 'Edited.' WHERE response_id = 10");

    // A callback queued by one check (as a health check's request arrives) has run by the time a later check starts.
    let queuedRan = false;
    let ranBeforeLaterCheck: boolean | undefined;
    mockCheckStarts.rules = () => setImmediate(() => (queuedRan = true));
    mockCheckStarts.schemas = () => (ranBeforeLaterCheck ??= queuedRan);

    clock += 1_000;
    const after = await store.current();
    expect(after.version).not.toBe(before.version);
    expect(ranBeforeLaterCheck).toBe(true);
  });
});
