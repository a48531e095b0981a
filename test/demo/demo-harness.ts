import { systemClock, type ActivityDeps } from '../../activities/deps';
import { createAnthropicLlmClient, llmCallLogger } from '../../activities/llm';
import { createToolDeps } from '../../activities/tools/deps';
import { loadSqlParser } from '../../activities/tools/sql/parser';
import { createTaskRegistry } from '../../core/tasks/registry';
import type { ConfigRows } from '../../core/config/types';
import { createConfigStore } from '../../db/config/store';
import { seedPacks } from '../../db/seed/seed';
import { inProcessDemoSend } from '../../demo/in-process-send';
import type { DemoSend } from '../../demo/conversations';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import type { ScriptedLlm } from '../../scripted-llm';
import { clearConfigRows, insertConfigRows } from '../support/config-db';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { configuredAuditGate } from '../../activities/runtime/audit-gate';

/**
 * The zero-setup demo stack in one process: a fresh database with every seed pack, the recorded
 * LLM behind the real Anthropic SDK client, the demo tool server for the HTTP tools, and turns run
 * by runTurnInProcess with the worker's activities.
 */
export class DemoHarness {
  private constructor(
    readonly tdb: TestDatabase,
    readonly llm: ScriptedLlm,
    readonly toolServer: DemoToolServer,
    readonly deps: ActivityDeps
  ) {}

  /** `fallback`: the keyless demo model of `convengine start` (recordings, then the fallback model). */
  static async start(options: { fallback?: boolean } = {}): Promise<DemoHarness> {
    const tdb = await createTestDatabase();
    await seedPacks(tdb.db, ['all']);
    const configStore = createConfigStore(tdb.db, { stalenessCheckMs: 0 });
    await configStore.refresh();
    const llm = await startDemoLlm(options.fallback ? { config: async () => (await configStore.current()).rows } : {});
    const toolServer = await startDemoToolServer();
    const deps: ActivityDeps = {
      db: tdb.db,
      configStore,
      llm: createAnthropicLlmClient({
        apiKey: 'demo-no-key',
        baseURL: llm.baseUrl,
        model: 'recorded-demo',
        timeoutMs: 10_000,
        maxTokens: 1024,
        maxRetries: 0,
        structuredOutput: false,
        demoMeta: options.fallback === true,
        onCall: llmCallLogger(tdb.db),
      }),
      clock: systemClock,
      audit: configuredAuditGate(systemClock),
      tasks: createTaskRegistry({}),
      tools: createToolDeps({
        sqlPool: tdb.toolsPool(),
        sqlParser: await loadSqlParser(),
        env: { CONVENGINE_TOOL_DEMO_URL: toolServer.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY },
        handlers: {},
        sleep: async () => undefined,
      }),
    };
    return new DemoHarness(tdb, llm, toolServer, deps);
  }

  /** Replaces the seeded config with `rows` (an example pack); the store reads the new revision on its next turn. */
  async configure(rows: Partial<ConfigRows>): Promise<void> {
    await clearConfigRows(this.tdb.db);
    await insertConfigRows(this.tdb.db, rows);
  }

  get send(): DemoSend {
    return inProcessDemoSend(this.deps);
  }

  /** One turn that expects nothing: the keyless-model tests check its reply, intent and state themselves. */
  say(message: string, conversationId: string | null = null) {
    return this.send(conversationId, { message, expect: { reply: '', intent: '', state: '' } });
  }

  /** LLM requests the recordings did not answer (the scripted server refused them). */
  unscripted(): string[] {
    return this.llm.requests
      .filter((r) => r.answeredBy === null)
      .map((r) => `${r.kind ?? 'none'}: ${`${r.system}\n${r.userText}`.slice(-400)}`);
  }

  async stop(): Promise<void> {
    await this.toolServer.stop();
    await this.llm.stop();
    await this.tdb.drop();
  }
}
