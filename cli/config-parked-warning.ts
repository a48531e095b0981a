import { PENDING_EXPIRY_MARGIN_MS } from '../api/pending-approval';
import {
  changesTouchTools,
  parkedOnChangedTools,
  type ChangedRow,
  type ParkedOnChangedTool,
  type ToolChange,
} from '../core/config/parked-tools';
import type { ConfigRows } from '../core/config/types';
import { shownText } from '../core/text/one-line-text';
import type { Database } from '../db/pool';
import { parkedTurns } from '../db/repositories/parked-turns';
import type { CliIo } from './command';

/** How many conversation ids a warning names; the count says how many there are. */
const NAMED_CONVERSATIONS = 5;

/** Whether the change is a plan (`config diff`, `apply --dry-run`) or made (`config apply`): the advice differs. */
export type ChangeState = 'planned' | 'applied';

/**
 * What each wait is called, and what to do: while the change is a plan, decide them before making it; once it is
 * made, it cannot wait for them any more, and the decision that runs the call still runs the tool as their version
 * has it, so the advice names the decisions that keep it from running.
 */
const WAITS = {
  approval: {
    verb: 'wait on an approval',
    planned: 'approve or reject them first (convengine sre approvals)',
    applied:
      'the change is made: approved, they run the old tool; reject them if it must not run (convengine sre approvals)',
  },
  held: {
    verb: 'are held for an operator',
    planned: 'resolve them first (convengine sre list; retry, skip, fail or mark-done)',
    applied:
      'the change is made: retried, they run the old tool; skip or fail them if it must not run (convengine sre list)',
  },
} as const;

/** What the change does to the tool, as a plan says it and as a made change does. */
const CHANGE_WORDS: Readonly<Record<ToolChange, Record<ChangeState, string>>> = {
  removes: { planned: 'removes', applied: 'removed' },
  disables: { planned: 'disables', applied: 'disabled' },
  changes: { planned: 'changes', applied: 'changed' },
};

/** The tool code and conversation ids come from config rows and the audit trail: their controls are shown (shownText). */
function parkedWarning(
  { toolCode, waitsOn, change, conversationIds }: ParkedOnChangedTool,
  state: ChangeState
): string {
  const named = conversationIds.slice(0, NAMED_CONVERSATIONS).map(shownText).join(', ');
  const more = conversationIds.length - NAMED_CONVERSATIONS;
  const wait = WAITS[waitsOn];
  return (
    `warning: ${conversationIds.length} turn(s) ${wait.verb} for tool ${shownText(toolCode)}, which this change ` +
    `${CHANGE_WORDS[change][state]}; ` +
    'they run on the config version they started on when decided (the tool as it was, even removed): ' +
    `${named}${more > 0 ? ` and ${more} more` : ''}; ${wait[state]}`
  );
}

/**
 * Warns (config diff, apply, --dry-run) of turns parked on a tool (its approval, or held for an operator) that the
 * change removes, disables or changes: decided after it, they still run the tool of their pinned version. Read from
 * the audit trail, so no Temporal is needed; only when the change touches a tool's rows. `state`: whether the change
 * is still a plan, to be held back until they are decided, or made already.
 */
export async function warnParkedOnChangedTools(
  db: Database,
  current: ConfigRows,
  rows: ConfigRows,
  changes: readonly ChangedRow[],
  state: ChangeState,
  io: CliIo
): Promise<void> {
  if (!changesTouchTools(changes)) return;
  const parked = await parkedTurns(db, new Date(Date.now() - PENDING_EXPIRY_MARGIN_MS));
  for (const group of parkedOnChangedTools(current, rows, changes, parked)) io.err(parkedWarning(group, state));
}
