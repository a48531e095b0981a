import type { ApprovalQueue, AwaitingApprovalTurn } from '../../api/turns/approval-queue';
import { shownText } from '../../core/text/one-line-text';
import type { CliIo } from '../command';
import { outJson } from '../json-line';

/** Turns per visibility page while `sre approvals` reads the whole queue. */
const PAGE = 100;

/** Where a turn stands: its conversation and turn number, and intent / state when visibility knows them. */
function turnLine({ workflowId, conversationId, turnNumber, intent, state }: AwaitingApprovalTurn): string {
  const at = intent !== null && state !== null ? `, at ${intent} / ${state}` : '';
  return `  conversation ${conversationId ?? '?'} turn ${turnNumber ?? '?'}${at} (${workflowId})`;
}

/**
 * One turn awaiting approval; for a turn parked by a worker before its memo said what it waits on (PARKED_MEMO_PATCH)
 * and no worker to ask, what visibility knows of it and why its call is not shown. Each line quotes what the turn
 * says (a tool code, an intent and state from config rows; a worker's reason): its controls are shown (shownText).
 */
function printTurn(io: CliIo, turn: AwaitingApprovalTurn): void {
  const out = (line: string) => io.out(shownText(line));
  const a = turn.approval;
  if (!a) {
    out(`${turn.workflowId}  pending call unavailable: ${turn.unavailable ?? 'not answered'}`);
    out(turnLine(turn));
    return;
  }
  out(`${turn.workflowId}  ${a.toolCode} (call ${a.callIndex}) awaits approval`);
  out(turnLine(turn));
  out(`  requested ${a.requestedAt ?? 'at an unknown time'}, expires ${a.expiresAt}`);
}

/** What `sre list` and `sre approvals` print of the turns they list. */
interface ParkedList<T> {
  json: boolean;
  /** The line when none waits. */
  none: string;
  print(io: CliIo, turn: T): void;
  /** Whether a worker could not tell what the turn waits on. */
  unread(turn: T): boolean;
  /** What could not be read, for the message: "held call", "pending call". */
  what: string;
}

/**
 * Prints the turns (one JSON object a line with --json); 1 when a worker could not tell what some wait on (they are
 * listed all the same).
 */
export function printParked<T extends object>(io: CliIo, turns: readonly T[], list: ParkedList<T>): number {
  if (list.json) for (const t of turns) outJson(io, t);
  else if (turns.length === 0) io.out(list.none);
  else for (const t of turns) list.print(io, t);
  const unread = turns.filter(list.unread).length;
  if (unread === 0) return 0;
  io.err(`cannot read the ${list.what} of ${unread} turn(s): no worker answers them; start one, then list again`);
  return 1;
}

/** `convengine sre approvals`: every turn waiting for a tool approval, read page by page. */
export async function printApprovals(io: CliIo, queue: ApprovalQueue, json: boolean): Promise<number> {
  const turns: AwaitingApprovalTurn[] = [];
  let after: string | undefined;
  do {
    const page = await queue.list({ limit: PAGE, ...(after !== undefined ? { after } : {}) });
    turns.push(...page.turns);
    after = page.next ?? undefined;
  } while (after !== undefined);
  const none = 'No turns await approval.';
  return printParked(io, turns, {
    json,
    none,
    print: printTurn,
    unread: (t) => t.approval === null,
    what: 'pending call',
  });
}
