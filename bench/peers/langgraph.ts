import { randomUUID } from 'node:crypto';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Pool } from 'pg';
import { mean, percentile } from '../turns';

/**
 * The peer users would otherwise pick: LangGraph JS with its PostgreSQL checkpointer. A chain of
 * `steps` no-op nodes (as many as our turn has activities) whose state carries `payload` (our median
 * activity input), each node returning the whole state like our steps do; run with the checkpointer
 * on the bench's own PostgreSQL and without one. The difference per step is LangGraph's durability
 * overhead, the figure our "Per-step overhead" row is compared with.
 */
export interface LangGraphPeerResult {
  steps: number;
  payloadBytes: number;
  runs: number;
  /** Checkpoint saved before the next step starts (`durability: "sync"`), like an activity's result. */
  syncMsPerStep: number;
  /** LangGraph's default: the checkpoint is written while the next step runs. */
  asyncMsPerStep: number;
  inMemoryMsPerStep: number;
  /** (sync − in-memory) ÷ steps, the like-for-like figure. */
  overheadMsPerStep: number;
  asyncOverheadMsPerStep: number;
  p95SyncMsPerStep: number;
}

const SCHEMA = 'bench_langgraph';

const TurnState = Annotation.Root({
  session: Annotation<unknown>(),
  step: Annotation<number>(),
});

type ChainState = typeof TurnState.State;

/** A linear chain of `steps` nodes. StateGraph types node names as literals, so the loop builds it untyped. */
function chainGraph(steps: number) {
  const graph = new StateGraph(TurnState) as unknown as {
    addNode(name: string, fn: (s: ChainState) => Partial<ChainState>): void;
    addEdge(from: string, to: string): void;
  };
  const name = (i: number) => `step${i}`;
  for (let i = 0; i < steps; i++) {
    graph.addNode(name(i), (s) => ({ session: s.session, step: s.step + 1 }));
    graph.addEdge(i === 0 ? START : name(i - 1), name(i));
  }
  graph.addEdge(name(steps - 1), END);
  return graph as unknown as StateGraph<typeof TurnState.spec>;
}

async function timeRuns(run: () => Promise<unknown>, runs: number, steps: number): Promise<number[]> {
  for (let i = 0; i < 2; i++) await run();
  const perStep: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    perStep.push((performance.now() - started) / steps);
  }
  return perStep;
}

export async function benchLangGraphPeer(
  pool: Pool,
  payload: unknown,
  steps: number,
  runs = 10
): Promise<LangGraphPeerResult> {
  const checkpointer = new PostgresSaver(pool, undefined, { schema: SCHEMA });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
  await checkpointer.setup();
  const builder = chainGraph(Math.max(1, steps));
  const durable = builder.compile({ checkpointer });
  const inMemory = builder.compile();
  const input = { session: payload, step: 0 };
  const thread = (durability: 'sync' | 'async') => ({
    configurable: { thread_id: randomUUID() },
    durability,
    recursionLimit: steps + 10,
  });
  const sync = await timeRuns(() => durable.invoke(input, thread('sync')), runs, steps);
  const async_ = await timeRuns(() => durable.invoke(input, thread('async')), runs, steps);
  const memory = await timeRuns(() => inMemory.invoke(input, { recursionLimit: steps + 10 }), runs, steps);
  return {
    steps,
    payloadBytes: Buffer.byteLength(JSON.stringify(payload)),
    runs,
    syncMsPerStep: mean(sync),
    asyncMsPerStep: mean(async_),
    inMemoryMsPerStep: mean(memory),
    overheadMsPerStep: mean(sync) - mean(memory),
    asyncOverheadMsPerStep: mean(async_) - mean(memory),
    p95SyncMsPerStep: percentile(sync, 95),
  };
}
