import type { DemoConversation, DemoTurn, ExpectedText } from './conversations';
import { oneLineText } from '../core/text/one-line-text';

/**
 * Runs demo conversations through an injected transport and checks each turn against its
 * expectations. Knows nothing about HTTP, Temporal or the database: `send` does the turn.
 */
export interface DemoTurnResult {
  conversationId: string;
  reply: string;
  intent: string;
  state: string;
  outcome?: string | null;
  workflowId?: string | null;
}

/** Runs one turn; `conversationId` is null for the first turn of a conversation. */
export type DemoSend = (conversationId: string | null, turn: DemoTurn) => Promise<DemoTurnResult>;

export interface DemoTurnRecord {
  conversation: string;
  /** 1-based turn number within the conversation. */
  turn: number;
  conversationId: string | null;
  user: string;
  reply: string;
  intent: string;
  state: string;
  outcome: string | null;
  workflowId: string | null;
  ok: boolean;
  /** What differed from the expectation (or why the turn did not run). */
  mismatch?: string;
}

export interface DemoRunOptions {
  /** Conversations to run; default: all demo conversations. */
  conversations?: readonly DemoConversation[];
  /** Only the conversations with these names. */
  only?: readonly string[];
  /** Run the conversations concurrently (turns within one conversation stay in order). */
  parallel?: boolean;
  /** Called after every turn, e.g. to print the transcript as it happens. */
  onTurn?: (record: DemoTurnRecord) => void;
}

function fits(expected: ExpectedText, actual: string): boolean {
  if (typeof expected === 'string') return expected === actual;
  expected.lastIndex = 0;
  return expected.test(actual);
}

function show(expected: ExpectedText): string {
  return typeof expected === 'string' ? JSON.stringify(expected) : String(expected);
}

/** Every field that differs from the expectation, or undefined when the turn is as expected. */
export function turnMismatch(turn: DemoTurn, result: DemoTurnResult): string | undefined {
  const problems: string[] = [];
  const { reply, intent, state } = turn.expect;
  if (!fits(reply, result.reply)) problems.push(`reply: expected ${show(reply)}, got ${JSON.stringify(result.reply)}`);
  if (intent !== result.intent) problems.push(`intent: expected ${intent}, got ${result.intent}`);
  if (state !== result.state) problems.push(`state: expected ${state}, got ${result.state}`);
  return problems.length === 0 ? undefined : problems.join('; ');
}

function notRun(conversation: string, turn: number, user: string, reason: string): DemoTurnRecord {
  return {
    conversation,
    turn,
    conversationId: null,
    user,
    reply: '',
    intent: '',
    state: '',
    outcome: null,
    workflowId: null,
    ok: false,
    mismatch: reason,
  };
}

function recordOf(conversation: string, index: number, turn: DemoTurn, result: DemoTurnResult): DemoTurnRecord {
  const mismatch = turnMismatch(turn, result);
  return {
    conversation,
    turn: index + 1,
    conversationId: result.conversationId,
    user: turn.message,
    reply: result.reply,
    intent: result.intent,
    state: result.state,
    outcome: result.outcome ?? null,
    workflowId: result.workflowId ?? null,
    ok: mismatch === undefined,
    ...(mismatch === undefined ? {} : { mismatch }),
  };
}

/** One conversation, turn by turn; after a failed request the remaining turns are reported as not run. */
async function runConversation(
  conversation: DemoConversation,
  send: DemoSend,
  onTurn: (record: DemoTurnRecord) => void
): Promise<DemoTurnRecord[]> {
  const records: DemoTurnRecord[] = [];
  let conversationId: string | null = null;
  let failure: string | null = null;
  for (const [index, turn] of conversation.turns.entries()) {
    let record: DemoTurnRecord;
    if (failure !== null) {
      record = notRun(conversation.name, index + 1, turn.message, `not run: ${failure}`);
    } else {
      try {
        const result = await send(conversationId, turn);
        conversationId = result.conversationId;
        record = recordOf(conversation.name, index, turn, result);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        failure = `turn ${index + 1} failed`;
        record = notRun(conversation.name, index + 1, turn.message, `request failed: ${message}`);
      }
    }
    records.push(record);
    onTurn(record);
  }
  return records;
}

export async function runConversations(
  conversations: readonly DemoConversation[],
  send: DemoSend,
  options: DemoRunOptions = {}
): Promise<DemoTurnRecord[]> {
  const selected = options.only ? conversations.filter((c) => options.only?.includes(c.name)) : conversations;
  const onTurn = options.onTurn ?? (() => undefined);
  if (options.parallel) {
    return (await Promise.all(selected.map((c) => runConversation(c, send, onTurn)))).flat();
  }
  const records: DemoTurnRecord[] = [];
  for (const conversation of selected) records.push(...(await runConversation(conversation, send, onTurn)));
  return records;
}

export function demoSummary(records: readonly DemoTurnRecord[]): { turns: number; passed: number; failed: number } {
  const passed = records.filter((r) => r.ok).length;
  return { turns: records.length, passed, failed: records.length - passed };
}

/** The transcript as text: one block per turn, the user line, the reply, and any mismatch. */
export function formatDemoTranscript(records: readonly DemoTurnRecord[]): string {
  return records
    .map((r) => {
      const head = `[${r.conversation} #${r.turn}] ${r.ok ? 'ok' : 'FAILED'} (${r.intent || '-'}/${r.state || '-'})`;
      // A reply is the model's or a tool's words: shown on its line, a control in it as its code point.
      const lines = [head, `  user:  ${oneLineText(r.user)}`, `  reply: ${oneLineText(r.reply)}`];
      if (r.mismatch) lines.push(`  mismatch: ${oneLineText(r.mismatch)}`);
      return lines.join('\n');
    })
    .join('\n');
}
