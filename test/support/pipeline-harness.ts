import { eq } from 'drizzle-orm';
import type { ConfigRows } from '../../core/config/types';
import { ceConversation, ceConversationHistory } from '../../db/schema';
import { createTaskRegistry, type TaskTable } from '../../core/tasks/registry';
import type { TurnResult } from '../../core/turn/contracts';
import type { TurnActivities } from '../../core/turn/activities';
import { systemClock, type ActivityDeps } from '../../activities/deps';
import { createAnthropicLlmClient, llmCallLogger } from '../../activities/llm';
import { createActivities } from '../../activities';
import { createPipelineActivities, type PipelineStepFunctions } from '../../activities/pipeline';
import { runTurnInProcess, type InProcessOptions, type TurnRequest } from '../../activities/runner/in-process';
import { createToolDeps, type ToolHandler } from '../../activities/tools/deps';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { createConfigStore, type DatabaseConfigStore } from '../../db/config/store';
import { listAudits, type StoredAudit } from '../../db/repositories/audit';
import { findConversation } from '../../db/repositories/conversation';
import { startDemoLlm } from '../../demo/recorded-llm';
import { startScriptedLlm, type ScriptedLlm } from '../../scripted-llm';
import { clearConfigRows, insertConfigRows } from './config-db';
import { createTestDatabase, type TestDatabase } from './database';
import { configuredAuditGate } from '../../activities/runtime/audit-gate';

export interface HarnessOptions {
  tasks?: TaskTable;
  /** Tool handlers by tool code (stubs for HTTP/DB tools). */
  handlers?: Record<string, ToolHandler>;
  overrides?: Partial<PipelineStepFunctions>;
  /**
   * The keyless demo model `convengine start` runs without a key (recordings, then keyword matching over the loaded
   * config), told each turn's intent, state and text in headers as it is there; else the scripted server.
   */
  demoModel?: boolean;
}

/**
 * A fresh database, the scripted Messages server behind the real SDK client, and the pipeline +
 * MCP activities run in-process: what every pipeline scenario test needs.
 */
export class PipelineHarness {
  private constructor(
    readonly tdb: TestDatabase,
    readonly llm: ScriptedLlm,
    readonly deps: ActivityDeps,
    readonly store: DatabaseConfigStore,
    private readonly options: HarnessOptions
  ) {}

  static async start(options: HarnessOptions = {}): Promise<PipelineHarness> {
    const tdb = await createTestDatabase();
    const store = createConfigStore(tdb.db, { stalenessCheckMs: 0 });
    const llm = options.demoModel
      ? await startDemoLlm({ config: async () => (await store.current()).rows })
      : await startScriptedLlm();
    const client = createAnthropicLlmClient({
      apiKey: 'test-key',
      baseURL: llm.baseUrl,
      model: 'scripted-model',
      timeoutMs: 5000,
      maxTokens: 512,
      maxRetries: 2,
      structuredOutput: false,
      demoMeta: options.demoModel === true,
      onCall: llmCallLogger(tdb.db),
    });
    const deps: ActivityDeps = {
      db: tdb.db,
      configStore: store,
      llm: client,
      clock: systemClock,
      audit: configuredAuditGate(systemClock),
      tasks: createTaskRegistry(options.tasks ?? {}),
      tools: createToolDeps({
        sqlPool: tdb.toolsPool(),
        sqlParser: await loadSqlParser(),
        env: {},
        handlers: options.handlers ?? {},
        sleep: async () => undefined,
      }),
    };
    return new PipelineHarness(tdb, llm, deps, store, options);
  }

  /** Replaces the config tables' content; throws CONFIG_INVALID (listing violations) if the store refuses it. */
  async configure(rows: Partial<ConfigRows>): Promise<void> {
    await clearConfigRows(this.tdb.db);
    await insertConfigRows(this.tdb.db, rows);
    await this.store.refresh();
  }

  /** The worker's activities, with any pipeline steps this harness overrides. */
  activities(): TurnActivities {
    return { ...createActivities(this.deps), ...createPipelineActivities(this.deps, this.options.overrides) };
  }

  turn(request: TurnRequest, options: InProcessOptions = {}): Promise<TurnResult> {
    return runTurnInProcess(this.deps, request, { ...options, activities: this.activities() });
  }

  async audits(conversationId: string, turnNumber?: number): Promise<StoredAudit[]> {
    const all = await listAudits(this.tdb.db, conversationId);
    return turnNumber === undefined ? all : all.filter((a) => a.turnNumber === turnNumber);
  }

  /** Audit stages of a conversation (optionally one turn), frame stages removed. */
  async stages(conversationId: string, turnNumber?: number): Promise<string[]> {
    return (await this.audits(conversationId, turnNumber)).map((a) => a.stage).filter((s) => !s.startsWith('STEP_'));
  }

  /** Puts a conversation into a known committed state (as if earlier turns had run). */
  async seedConversation(conversationId: string, row: Partial<typeof ceConversation.$inferInsert>): Promise<void> {
    await this.tdb.db.insert(ceConversation).values({ conversationId, ...row });
  }

  async historyCount(conversationId: string): Promise<number> {
    const rows = await this.tdb.db
      .select()
      .from(ceConversationHistory)
      .where(eq(ceConversationHistory.conversationId, conversationId));
    return rows.length;
  }

  conversation(conversationId: string) {
    return findConversation(this.tdb.db, conversationId);
  }

  async stop(): Promise<void> {
    await this.llm.stop();
    await this.tdb.drop();
  }
}

/** True when `expected` appears in `actual` in this relative order. */
export function inOrder(actual: readonly string[], expected: readonly string[]): boolean {
  let i = 0;
  for (const stage of actual) if (stage === expected[i]) i++;
  return i === expected.length;
}

export function expectInOrder(actual: readonly string[], expected: readonly string[]): void {
  if (!inOrder(actual, expected)) {
    throw new Error(
      `stages not in order.\nexpected (subsequence): ${expected.join(', ')}\nactual: ${actual.join(', ')}`
    );
  }
}

/** Each test of the enclosing block starts from an empty model script and must use up what it pushes. */
export function freshLlmScriptPerTest(harness: () => PipelineHarness): void {
  beforeEach(() => {
    harness().llm.setScript([]);
    harness().llm.clearRequests();
  });
  afterEach(() => expect(harness().llm.unconsumed()).toEqual([]));
}
