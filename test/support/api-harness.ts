import { eraseConversation } from '../../api/turns/erase';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/app';
import { consolePorts } from '../../api/console/wiring';
import { conversationQueries } from '../../api/db-queries';
import type { ApiPorts } from '../../api/ports';
import { temporalApprovalQueue } from '../../api/turns/approval-queue';
import { temporalHeldTools } from '../../api/turns/held-tools';
import { temporalTurnEnds } from '../../api/turns/turn-ended';
import { configReplyTexts } from '../../api/reply-texts';
import { extracted, LOAN_MESSAGE, loanConfig, plan } from './loan-config';
import { answer } from './order-config';
import { WorkflowHarness, type WorkflowHarnessOptions } from './workflow-harness';

/** Response bodies are read loosely in tests; each assertion states the shape it expects. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ApiJson = any;

export interface ApiHarnessOptions {
  apiToken?: string;
  /** OPERATOR_API_TOKEN: the operator routes' own token (needs apiToken). */
  operatorToken?: string;
  messageMaxBytes?: number;
  /** The Temporal Web UI the console links turns to (TEMPORAL_UI_URL). */
  temporalUiUrl?: string;
  /** TURN_REPLY_TIMEOUT_MS. */
  replyTimeoutMs?: number;
  /** OPERATOR_DECISION_TIMEOUT_MS (default 10 s). */
  decisionTimeoutMs?: number;
  /** The keyless demo model of `convengine start` instead of the scripted one (PipelineHarness). */
  demoModel?: boolean;
  /** The worker's activities (WorkflowHarness). */
  activities?: WorkflowHarnessOptions['activities'];
  /** A Temporal server the caller runs, and the deployment's task queue on it (WorkflowHarness). */
  temporal?: WorkflowHarnessOptions['temporal'];
  taskQueue?: string;
}

/** The HTTP gateway over the real ports: Temporal gateway on the test server, PostgreSQL, config store. */
export class ApiHarness {
  private constructor(
    readonly wf: WorkflowHarness,
    readonly app: FastifyInstance,
    readonly baseUrl: string
  ) {}

  /** A real HTTP request to the gateway; the body is sent as given (so malformed bodies can be tested). */
  async request(
    method: string,
    path: string,
    options: { body?: string; json?: unknown; headers?: Record<string, string> } = {}
  ): Promise<{ status: number; body: string; json(): ApiJson; headers: Headers }> {
    const body = options.json !== undefined ? JSON.stringify(options.json) : options.body;
    const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: text, json: () => JSON.parse(text), headers: res.headers };
  }

  /** POST /api/v1/conversation/message with an Idempotency-Key. */
  sendMessage(message: string, conversationId: string, idempotencyKey: string) {
    return this.request('POST', '/api/v1/conversation/message', {
      json: { message, conversationId },
      headers: { 'idempotency-key': idempotencyKey },
    });
  }

  /**
   * A loan application whose submit waits for a person (requires_approval): the POST's answer, a 202 once the turn
   * parks on the approval of call #2.
   */
  async parkOnApproval(conversationId: string) {
    await this.wf.mcp.configure(loanConfig({ submitNeedsApproval: true }));
    this.wf.mcp.setHandlers({});
    this.wf.mcp.llm.setScript([
      extracted('CUST-1001'),
      plan('loan.credit.rating.check', 'CUST-1001'),
      plan('loan.application.submit', 'CUST-1001'),
      answer('Submitted LA-90311.'),
    ]);
    return this.sendMessage(LOAN_MESSAGE, conversationId, `parked-${conversationId}`);
  }

  /** GET /api/v1/conversation/{id}'s body. */
  async conversation(conversationId: string): Promise<ApiJson> {
    return (await this.request('GET', `/api/v1/conversation/${conversationId}`)).json();
  }

  static async start(options: ApiHarnessOptions = {}): Promise<ApiHarness> {
    const { demoModel, activities, temporal, taskQueue } = options;
    const wf = await WorkflowHarness.start({ demoModel, activities, temporal, taskQueue });
    const db = wf.mcp.deps.db;
    // As api/server.ts wires it: Temporal tells a turn that ended without its failure row.
    const conversations = conversationQueries(db, temporalTurnEnds(wf.client.workflow, wf.taskQueue));
    const ports: ApiPorts = {
      turns: wf.gateway({ replyTimeoutMs: options.replyTimeoutMs, decisionTimeoutMs: options.decisionTimeoutMs }),
      conversations,
      replyTexts: configReplyTexts({ snapshot: async () => wf.mcp.base.store.current(), conversations }),
      config: { refresh: async () => wf.mcp.base.store.refresh() },
      heldTools: temporalHeldTools(wf.client, {
        taskQueue: wf.taskQueue,
        decisionTimeoutMs: options.decisionTimeoutMs,
      }),
      approvals: temporalApprovalQueue(wf.client, wf.taskQueue),
      eraseConversation: (request) =>
        eraseConversation(db, { workflow: wf.client.workflow, taskQueue: wf.taskQueue }, request),
      readiness: {
        check: async () => ({
          checks: {
            database: await db.execute('select 1').then(
              () => 'ok',
              () => 'unreachable'
            ),
            temporal: 'ok',
          },
        }),
      },
    };
    const app = buildApi({
      ports,
      apiToken: options.apiToken,
      operatorToken: options.operatorToken,
      messageMaxBytes: options.messageMaxBytes ?? 8192,
      logLevel: 'silent',
      streamPollIntervalMs: 50,
      streamMaxDurationMs: 3000,
      console: consolePorts(db, wf.client, { taskQueue: wf.taskQueue, temporalUiUrl: options.temporalUiUrl }),
    });
    const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    return new ApiHarness(wf, app, baseUrl);
  }

  async stop(): Promise<void> {
    await this.app.close();
    await this.wf.stop();
  }
}
