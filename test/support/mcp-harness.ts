import type { ConfigRows } from '../../core/config/types';
import type { TurnResult } from '../../core/turn/contracts';
import type { ActivityDeps } from '../../activities/deps';
import { runTurnInProcess, type InProcessOptions, type TurnRequest } from '../../activities/runner/in-process';
import { createToolDeps, type ToolHandler } from '../../activities/tools/deps';
import type { StoredAudit } from '../../db/repositories/audit';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import { PipelineHarness, type HarnessOptions } from './pipeline-harness';

/**
 * The pipeline harness (fresh database, scripted Messages server behind the real SDK) with the
 * real MCP activities, real DB/HTTP tools and the demo tool server on loopback. Tool handlers
 * can be stubbed per tool code (`handlers`) for failure scenarios.
 */
export const DEMO_TOOL_ENV = {
  DEMO_URL: 'CONVENGINE_TOOL_DEMO_URL',
  DEMO_API_KEY: 'CONVENGINE_TOOL_DEMO_API_KEY',
} as const;

export class McpHarness {
  handlers: Record<string, ToolHandler> = {};
  deps: ActivityDeps;

  private constructor(
    readonly base: PipelineHarness,
    readonly toolServer: DemoToolServer
  ) {
    this.deps = this.buildDeps();
  }

  static async start(options: Pick<HarnessOptions, 'demoModel'> = {}): Promise<McpHarness> {
    const base = await PipelineHarness.start(options);
    const toolServer = await startDemoToolServer();
    return new McpHarness(base, toolServer);
  }

  get llm() {
    return this.base.llm;
  }

  get db() {
    return this.base.tdb;
  }

  private buildDeps(): ActivityDeps {
    const env = {
      [DEMO_TOOL_ENV.DEMO_URL]: this.toolServer.baseUrl,
      [DEMO_TOOL_ENV.DEMO_API_KEY]: DEMO_API_KEY,
    };
    const base = this.base.deps.tools;
    const tools = createToolDeps({
      sqlPool: base.sql.pool,
      sqlParser: base.sqlParser,
      env,
      handlers: this.handlers,
      sleep: async () => undefined,
    });
    return { ...this.base.deps, tools };
  }

  /** Replaces the stub tool handlers (by tool code); takes effect for the next turn. */
  setHandlers(handlers: Record<string, ToolHandler>): void {
    this.handlers = handlers;
    this.deps = this.buildDeps();
  }

  async configure(rows: Partial<ConfigRows>): Promise<void> {
    await this.base.configure(rows);
  }

  turn(request: TurnRequest, options: InProcessOptions = {}): Promise<TurnResult> {
    return runTurnInProcess(this.deps, request, options);
  }

  audits(conversationId: string, turnNumber?: number): Promise<StoredAudit[]> {
    return this.base.audits(conversationId, turnNumber);
  }

  stages(conversationId: string, turnNumber?: number): Promise<string[]> {
    return this.base.stages(conversationId, turnNumber);
  }

  /** Payload of the first audit with this stage (within the turn when given). */
  async payload(
    conversationId: string,
    stage: string,
    turnNumber?: number
  ): Promise<Record<string, unknown> | undefined> {
    return (await this.audits(conversationId, turnNumber)).find((a) => a.stage === stage)?.payload;
  }

  async stop(): Promise<void> {
    await this.toolServer.stop();
    await this.base.stop();
  }
}
