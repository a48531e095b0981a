import type { AuditRecord } from '../core/audit';
import {
  applyPlanDecision,
  applyToolResult,
  clearMcpTurnContext,
  markAbruptedIfUnanswered,
  readObservations,
  runMcpStep,
  writeLoopFlags,
} from '../core/mcp';
import { cloneSession } from '../core/step/scope';
import type {
  McpLoopPlan,
  McpPlanInput,
  McpPlanOutput,
  McpPrepareOutput,
  McpToolCallInput,
  McpToolDescriptor,
  PlannerDecision,
  StepInput,
  StepOutput,
  TurnInput,
} from '../core/turn/contracts';
import type { TurnExecutor } from '../core/turn/executor';
import { blankSession } from '../core/turn/session-factory';

/**
 * Benchmark: the planner loop's own overhead per iteration — the driver's checks (policy tag,
 * duplicate signature, next-tool guard, scope) and the pure session updates the activities
 * apply — with every activity answered in memory (no LLM, database or HTTP).
 * Run: `npx tsx bench/planner-loop.ts`.
 */
export interface PlannerLoopBench {
  name: 'planner-loop';
  turns: number;
  iterationsPerTurn: number;
  microsPerIteration: number;
  microsPerTurn: number;
}

const TOOLS: McpToolDescriptor[] = ['bench.status', 'bench.trace', 'bench.rating', 'bench.fraud'].map((toolCode) => ({
  toolCode,
  toolGroup: 'HTTP_API',
  sideEffect: 'READ_ONLY',
  requiresApproval: false,
  approvalTimeoutMs: null,
  directCallable: true,
  retry: {
    maxAttempts: null,
    initialIntervalMs: null,
    backoffCoefficient: null,
    maxIntervalMs: null,
    startToCloseTimeoutMs: null,
  },
}));

function inMemoryExecutor(plan: McpLoopPlan, calls: number): TurnExecutor {
  const decide = (i: number): PlannerDecision =>
    i <= calls
      ? {
          action: 'CALL_TOOL',
          toolCode: TOOLS[(i - 1) % TOOLS.length]?.toolCode ?? null,
          args: { id: `ORD-${i}` },
          answer: null,
          operationTag: null,
        }
      : { action: 'ANSWER', toolCode: null, args: {}, answer: 'done', operationTag: null };
  const out = (session: StepInput['session'], audits: AuditRecord[] = []): StepOutput => ({ session, audits });
  return {
    step: () => Promise.reject(new Error('not used')),
    async mcpPrepare(input: StepInput): Promise<McpPrepareOutput> {
      const session = cloneSession(input.session);
      clearMcpTurnContext(session);
      writeLoopFlags(session, false, false, plan.maxLoops);
      return { ...out(session), plan };
    },
    async mcpPlan(input: McpPlanInput): Promise<McpPlanOutput> {
      const session = cloneSession(input.session);
      const decision = decide(input.iteration);
      return { ...out(session, applyPlanDecision(session, decision)), decision };
    },
    async mcpToolCall(input: McpToolCallInput, tool: McpToolDescriptor): Promise<StepOutput> {
      const session = cloneSession(input.session);
      const result = {
        status: 200,
        attempt: 1,
        latencyMs: 1,
        mapped: { id: input.call.args['id'] ?? null, seen: readObservations(session).length },
      };
      return out(session, applyToolResult(session, input.call, tool.toolGroup, result));
    },
    async mcpFinalize(input: StepInput): Promise<StepOutput> {
      const session = cloneSession(input.session);
      markAbruptedIfUnanswered(session);
      return out(session);
    },
    awaitApproval: () => Promise.reject(new Error('not used')),
    record: async () => undefined,
  };
}

function stepInput(n: number): StepInput {
  const turn: TurnInput = {
    conversationId: `bench-${n}`,
    turnNumber: 1,
    turnId: `turn-bench-${n}-1`,
    message: 'check order',
    inputParams: {},
    reset: false,
    requestContext: {},
    idempotencyKey: null,
    receivedAt: '2026-01-01T00:00:00.000Z',
  };
  return {
    turn,
    configVersion: 'bench',
    session: { ...blankSession(turn), intent: 'BENCH', state: 'RUN' },
    callKey: '19-McpTool',
  };
}

export async function benchPlannerLoop(turns = 400, toolCalls = 4): Promise<PlannerLoopBench> {
  const plan: McpLoopPlan = {
    run: true,
    skipReason: null,
    maxLoops: toolCalls + 1,
    tools: TOOLS,
    nextToolGuard: {
      enabled: true,
      failClosed: false,
      allowedNextByCurrentTool: { __START__: TOOLS.map((t) => t.toolCode) },
    },
  };
  const exec = inMemoryExecutor(plan, toolCalls);
  for (let i = 0; i < 20; i++) await runMcpStep(stepInput(i), exec);
  const started = performance.now();
  for (let i = 0; i < turns; i++) await runMcpStep(stepInput(i), exec);
  const micros = (performance.now() - started) * 1000;
  const iterations = toolCalls + 1;
  return {
    name: 'planner-loop',
    turns,
    iterationsPerTurn: iterations,
    microsPerIteration: micros / (turns * iterations),
    microsPerTurn: micros / turns,
  };
}

if (require.main === module) {
  void benchPlannerLoop().then((r) =>
    console.log(
      `planner-loop: ${r.microsPerIteration.toFixed(1)} µs/iteration without I/O ` +
        `(${r.turns} turns × ${r.iterationsPerTurn} iterations; ${r.microsPerTurn.toFixed(0)} µs/turn)`
    )
  );
}
