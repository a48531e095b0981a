import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { runTurnInProcess } from '../activities/runner/in-process';
import type { TurnResult } from '../core/turn/contracts';
import { isStepRunType, type StepRunResult } from '../core/turn/step-runs';
import { DEMO_CONVERSATIONS, type DemoConversation, type DemoTurn } from '../demo/conversations';
import { turnMismatch } from '../demo/demo-runner';
import { replyTextOf } from '../demo/in-process-send';
import { meanCosts, turnHistoryCosts, type MeanHistoryCosts, type TurnHistoryCosts } from './history-costs';
import { meanTimeline, turnTimeline, type MeanTimeline, type TurnTimeline } from './history-timeline';
import type { BenchStack } from './stack';

/**
 * Turn benchmarks on the demo mix (the loan conversation of Example 3, three turns, and the
 * MOVE_CONNECTIONS conversation, two turns) with the recorded LLM answering instantly: the same
 * turns through Temporal (gateway → dev server → worker process) and in this process
 * (runTurnInProcess, the same activity functions called directly).
 */

/** No new conversation of a run starts after this long. */
export const SECTION_LIMIT_MS = 120_000;

export const formatMs = (v: number) => `${v.toFixed(1)} ms`;

/** Turns whose reply was not the demo script's. */
export function offScriptCount(samples: readonly TurnSample[]): number {
  return samples.filter((s) => s.mismatch !== undefined).length;
}

export interface TurnSample {
  ms: number;
  conversationId: string;
  workflowId: string | null;
  /** Steps the turn ran, a step run's steps counted one by one (counted in process; read from history for durable turns). */
  activities: number;
  mismatch: string | undefined;
  /** When the reply arrived (performance.now()): which measuring window the turn ended in. */
  endedAt: number;
}

interface Sent {
  result: TurnResult;
  workflowId: string | null;
  activities: number;
}

export type Transport = (conversationId: string, turn: DemoTurn) => Promise<Sent>;

export function durable(stack: BenchStack): Transport {
  return async (conversationId, turn) => {
    const reply = await stack.gateway.sendMessage({
      conversationId,
      message: turn.message,
      inputParams: turn.inputParams ?? {},
      reset: false,
      idempotencyKey: null,
      requestContext: {},
    });
    if (reply.kind !== 'COMPLETED') throw new Error(`durable turn ended ${reply.kind}`);
    return { result: reply.result, workflowId: reply.ref.workflowId, activities: 0 };
  };
}

export function inProcess(stack: BenchStack): Transport {
  return async (conversationId, turn) => {
    let activities = 0;
    const result = await runTurnInProcess(
      stack.deps,
      { conversationId, message: turn.message, inputParams: turn.inputParams ?? {} },
      {
        around: async (name, _attempt, call) => {
          const out = await call();
          activities += isStepRunType(name) ? (out as StepRunResult).ran.length : 1;
          return out;
        },
      }
    );
    return { result, workflowId: null, activities };
  };
}

/** `count` conversations alternating loan and MOVE_CONNECTIONS. */
export function demoMix(count: number): DemoConversation[] {
  const loan = DEMO_CONVERSATIONS.find((c) => c.name === 'loan-confirmation');
  const move = DEMO_CONVERSATIONS.find((c) => c.name === 'move-connections');
  if (!loan || !move) throw new Error('demo conversations missing');
  return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? loan : move));
}

export function turnsOf(conversations: readonly DemoConversation[]): number {
  return conversations.reduce((n, c) => n + c.turns.length, 0);
}

/** Runs the conversation's turns in order; with `goOn`, stops before a turn when it says no. */
export async function runConversation(
  conversation: DemoConversation,
  send: Transport,
  out: TurnSample[],
  goOn: () => boolean = () => true
): Promise<void> {
  const conversationId = randomUUID();
  for (const turn of conversation.turns) {
    if (!goOn()) return;
    const started = performance.now();
    const sent = await send(conversationId, turn);
    const endedAt = performance.now();
    const ms = endedAt - started;
    const shown = { ...sent.result, reply: replyTextOf(sent.result.payload) };
    out.push({
      ms,
      conversationId,
      workflowId: sent.workflowId,
      activities: sent.activities,
      mismatch: turnMismatch(turn, shown),
      endedAt,
    });
  }
}

/** Runs the conversations `concurrency` at a time; no new conversation starts after `deadline`. */
export async function runMix(
  conversations: readonly DemoConversation[],
  send: Transport,
  concurrency: number,
  deadline: number
): Promise<{ samples: TurnSample[]; seconds: number }> {
  const queue = [...conversations];
  const samples: TurnSample[] = [];
  const started = performance.now();
  const lane = async () => {
    for (let next = queue.shift(); next && Date.now() < deadline; next = queue.shift()) {
      await runConversation(next, send, samples);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { samples, seconds: (performance.now() - started) / 1000 };
}

export interface HistoryStats {
  turns: number;
  /** The activity input of median size across all turns (a realistic payload for round-trip runs). */
  medianInput: unknown;
  meanEvents: number;
  maxEvents: number;
  meanBytes: number;
  maxBytes: number;
  /** Regular activities scheduled per turn. */
  meanActivities: number;
  /** Steps per turn: the steps regular and local activities ran (a step run runs several). */
  meanSteps: number;
  /** History bytes by step type, activities (regular, local), estimated billable actions: per-turn means. */
  costs: MeanHistoryCosts;
  /** Where the turns' time went, by their histories' timestamps: per-turn means. */
  timeline: MeanTimeline;
}

/** Events, encoded bytes and scheduled activities of each durable turn's history. */
export async function historyStats(stack: BenchStack, samples: readonly TurnSample[]): Promise<HistoryStats> {
  const rows: { events: number; bytes: number; activities: number }[] = [];
  const inputs: temporal.api.common.v1.IPayload[] = [];
  const costs: TurnHistoryCosts[] = [];
  const timelines: TurnTimeline[] = [];
  for (const sample of samples) {
    if (!sample.workflowId) continue;
    const history = await stack.client.workflow.getHandle(sample.workflowId).fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
    for (const s of scheduled) if (s.input?.payloads?.[0]) inputs.push(s.input.payloads[0]);
    const bytes = temporal.api.history.v1.History.encode(history).finish().length;
    rows.push({ events: events.length, bytes, activities: scheduled.length });
    costs.push(turnHistoryCosts(events));
    timelines.push(turnTimeline(events));
  }
  const mean = (f: (r: (typeof rows)[number]) => number) =>
    rows.reduce((n, r) => n + f(r), 0) / Math.max(1, rows.length);
  inputs.sort((a, b) => (a.data?.length ?? 0) - (b.data?.length ?? 0));
  const median = inputs[Math.floor(inputs.length / 2)];
  const meanCost = meanCosts(costs);
  return {
    turns: rows.length,
    medianInput: median ? defaultPayloadConverter.fromPayload(median as never) : {},
    meanEvents: mean((r) => r.events),
    maxEvents: Math.max(0, ...rows.map((r) => r.events)),
    meanBytes: mean((r) => r.bytes),
    maxBytes: Math.max(0, ...rows.map((r) => r.bytes)),
    meanActivities: mean((r) => r.activities),
    meanSteps: meanCost.regularSteps + meanCost.localSteps,
    costs: meanCost,
    timeline: meanTimeline(timelines),
  };
}

/**
 * The time the turns' steps themselves took, per turn: the durations their STEP_EXIT audit rows record,
 * measured inside each step by the same code on both sides (durable and in-process).
 */
export async function stepMsPerTurn(stack: BenchStack, samples: readonly TurnSample[]): Promise<number> {
  const conversations = [...new Set(samples.map((s) => s.conversationId))];
  const { rows } = await stack.tdb.pool.query<{ ms: number | null }>(
    `SELECT sum((payload_json ->> 'durationMs')::float8) AS ms FROM ce_audit
      WHERE conversation_id = ANY($1::uuid[]) AND stage = 'STEP_EXIT'`,
    [conversations]
  );
  return (rows[0]?.ms ?? NaN) / Math.max(1, samples.length);
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

/** CPU time (user + system, ms) of a process from /proc; NaN where /proc is not available. */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * CPU of every local PostgreSQL process (user + system), with the children the postmaster has reaped: the
 * database's share of a turn, when the bench's PostgreSQL runs on this machine. NaN without /proc.
 */
export function postgresCpuMs(): number {
  let total = 0;
  let found = false;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!stat.includes('(postgres)')) continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        total += ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / 100;
        found = true;
      } catch {
        // The process ended while we read: its time moved to its parent's reaped-children fields.
      }
    }
  } catch {
    return NaN;
  }
  return found ? total : NaN;
}

/** CPU so far (ms) of every process of the stack: worker, Temporal server, this process (client, LLM and tool servers), PostgreSQL. */
export function stackCpuMs(stack: BenchStack) {
  return {
    worker: processCpuMs(stack.worker.pid),
    server: processCpuMs(stack.server.pid),
    client: ownCpuMs(),
    postgres: postgresCpuMs(),
  };
}

export type StackCpu = ReturnType<typeof stackCpuMs>;

export function ownCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** CPU ms per thread name of a process (Linux /proc/<pid>/task), e.g. node main, workflow threads, tokio, V8 GC. */
export function threadCpuMs(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[comm] = (out[comm] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    }
  } catch {
    // A thread ended while we read, or no /proc: what was read so far is still useful.
  }
  return out;
}
