import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../api/errors';
import type { TurnGateway, TurnReply } from '../../../api/ports';
import type { TurnResult } from '../../../core/turn/contracts';
import { DEMO_CONVERSATIONS, type DemoConversation, type DemoTurn } from '../../../demo/conversations';

/**
 * Client side of the fault scenarios: demo conversations sent through the real gateway the way a
 * careful API client would — every turn under its own idempotency key, resent after a transport
 * error (it attaches to the turn already running, or reads its result), and a turn that ended
 * FAILED is handed to the SRE retry path (`retryTurn`) — all within a deadline.
 */
export interface TurnRecord {
  conversation: string;
  conversationId: string;
  turnNumber: number;
  workflowId: string;
  turn: DemoTurn;
  result: TurnResult;
  /** Distinct runs of this turn that ended FAILED (each one was re-run through retryTurn). */
  failedRuns: string[];
  /** `<failure type>: <message>` of each FAILED reply. */
  failures: string[];
  /** Errors the client saw and answered by resending the same request. */
  clientErrors: string[];
}

export interface ConversationRecord {
  name: string;
  conversationId: string;
  turns: TurnRecord[];
}

export interface TrafficOptions {
  /** Conversations in flight at once (turns within one conversation are sequential). */
  concurrency: number;
  /** Give up on one turn after this long (the test then fails, naming the turn). */
  turnDeadlineMs: number;
  onTurn?: (record: TurnRecord, completedTurns: number) => void | Promise<void>;
  /** Updated as turns start and finish, so fault schedules can report how many were in flight. */
  monitor?: TrafficMonitor;
  /** What the server knows about a turn that missed its deadline (status, pending activities). */
  diagnose?: (workflowId: string) => Promise<string>;
  /** Runs before a FAILED turn is handed to retryTurn (an operator waiting for a provider to recover). */
  beforeRetry?: (failed: Extract<TurnReply, { kind: 'FAILED' }>) => Promise<void>;
}

export class TrafficMonitor {
  started = 0;
  completed = 0;

  get inFlight(): number {
    return this.started - this.completed;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `count` copies of each named demo conversation, interleaved (loan, move, loan, move, ...). */
export function demoTraffic(counts: Record<string, number>): DemoConversation[] {
  const lists = Object.entries(counts).map(([name, count]) => {
    const conversation = DEMO_CONVERSATIONS.find((c) => c.name === name);
    if (!conversation) throw new Error(`no demo conversation ${name}`);
    return Array.from({ length: count }, () => conversation);
  });
  const out: DemoConversation[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++) {
    for (const l of lists) {
      const next = l[i];
      if (next) out.push(next);
    }
  }
  return out;
}

export function turnCount(conversations: readonly DemoConversation[]): number {
  return conversations.reduce((n, c) => n + c.turns.length, 0);
}

/** Worth resending: transport and database errors, and "that turn is still running / already done". */
function transient(err: unknown): boolean {
  if (!(err instanceof ApiError)) return true;
  return err.code === 'TURN_IN_PROGRESS' || err.code === 'TURN_ALREADY_COMPLETED';
}

function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.split('\n')[0]?.slice(0, 200) ?? text;
}

type Outcome = Pick<TurnRecord, 'workflowId' | 'result' | 'failedRuns' | 'failures' | 'clientErrors'>;

class DeadlineExceeded extends Error {}
/** A turn that waits for an operator: a fault suite expects none, and reports why (stack.diagnose). */
class TurnHeld extends Error {}

/** `call`, or DeadlineExceeded once `deadline` passes (the call itself may wait on a stuck turn). */
async function beforeDeadline<T>(deadline: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded('deadline')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([call(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function completeTurn(
  gateway: TurnGateway,
  request: Parameters<TurnGateway['sendMessage']>[0],
  deadline: number,
  beforeRetry: TrafficOptions['beforeRetry']
): Promise<Outcome> {
  const failed = new Map<string, string>();
  const clientErrors: string[] = [];
  const done = (reply: Extract<TurnReply, { kind: 'COMPLETED' }>): Outcome => ({
    workflowId: reply.ref.workflowId,
    result: reply.result,
    failedRuns: [...failed.keys()],
    failures: [...failed.values()],
    clientErrors,
  });
  const fail = (reply: Extract<TurnReply, { kind: 'FAILED' }>) =>
    failed.set(reply.ref.runId, `${reply.failureType}: ${reply.message}`.slice(0, 300));
  for (let round = 0; Date.now() < deadline; round++) {
    if (round > 0) await sleep(Math.min(1_000, 100 * round));
    let reply: TurnReply;
    try {
      reply = await beforeDeadline(deadline, () => gateway.sendMessage(request));
      if (reply.kind === 'FAILED') {
        fail(reply);
        await beforeRetry?.(reply);
        const workflowId = reply.ref.workflowId;
        reply = await beforeDeadline(deadline, () => gateway.retryTurn(workflowId));
      }
    } catch (err) {
      if (err instanceof DeadlineExceeded || !transient(err)) throw err;
      clientErrors.push(describe(err));
      continue;
    }
    if (reply.kind === 'COMPLETED') return done(reply);
    if (reply.kind === 'AWAITING_APPROVAL') throw new Error(`turn ${reply.ref.workflowId} waits for an approval`);
    if (reply.kind === 'HELD') throw new TurnHeld(`is held for an operator: ${JSON.stringify(reply.held)}`);
    // Still running past the API's wait: the same request (same idempotency key) attaches to it again.
    if (reply.kind === 'RUNNING') continue;
    fail(reply);
  }
  const failures = [...failed.values()].join(' | ');
  throw new DeadlineExceeded(`failed runs: ${failures}; client errors: ${clientErrors.join(' | ')}`);
}

async function runConversation(
  gateway: TurnGateway,
  conversation: DemoConversation,
  options: TrafficOptions,
  progress: TrafficMonitor
): Promise<ConversationRecord> {
  const conversationId = randomUUID();
  const record: ConversationRecord = { name: conversation.name, conversationId, turns: [] };
  for (const [index, turn] of conversation.turns.entries()) {
    const request = {
      conversationId,
      message: turn.message,
      inputParams: turn.inputParams ?? {},
      reset: false,
      idempotencyKey: `${conversationId}/${index + 1}`,
      requestContext: {},
    };
    progress.started += 1;
    const outcome = await completeTurn(
      gateway,
      request,
      Date.now() + options.turnDeadlineMs,
      options.beforeRetry
    ).catch(async (err: unknown) => {
      if (!(err instanceof DeadlineExceeded || err instanceof TurnHeld)) throw err;
      const workflowId = `turn-${conversationId}-${index + 1}`;
      const known = options.diagnose ? await options.diagnose(workflowId).catch(String) : '';
      const why =
        err instanceof TurnHeld ? err.message : `did not complete within ${options.turnDeadlineMs} ms (${err.message})`;
      throw new Error(`turn ${workflowId} ${why} ${known}`);
    });
    const turnRecord: TurnRecord = {
      conversation: conversation.name,
      conversationId,
      turnNumber: index + 1,
      turn,
      ...outcome,
    };
    record.turns.push(turnRecord);
    progress.completed += 1;
    await options.onTurn?.(turnRecord, progress.completed);
  }
  return record;
}

/** Runs the conversations with `concurrency` lanes; resolves when every turn completed (or throws). */
export async function runTraffic(
  gateway: TurnGateway,
  conversations: readonly DemoConversation[],
  options: TrafficOptions
): Promise<ConversationRecord[]> {
  const queue = [...conversations.entries()];
  const results: ConversationRecord[] = [];
  const progress = options.monitor ?? new TrafficMonitor();
  const lane = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      results[next[0]] = await runConversation(gateway, next[1], options, progress);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return results;
}
