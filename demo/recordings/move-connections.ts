import type { ScriptEntry } from '../../scripted-llm';
import { IN_PROGRESS_CONNECTION, MOVED_CONNECTION } from '../conversations';
import { answer, callTool, field, line, observed, prompt, recording } from './match';

/**
 * Planner 4101 (MOVE_CONNECTIONS / MOVE_STATUS) as a policy: with no observation yet, look up the
 * connection id named in the user message; once `postgres.move_status` has returned a row for
 * that id, answer with the status the row holds. The status is read from the DB tool's result
 * (one recording per status word), never assumed, so a different row gives a different answer.
 */
const PLANNER = 'You answer questions about moving connections.';
const TOOL = 'postgres.move_status';
const STATUSES = ['MOVED', 'IN_PROGRESS', 'PENDING', 'FAILED', 'CANCELLED'] as const;

function lookup(connectionId: string): ScriptEntry {
  return recording(
    `PLAN move: look up ${connectionId}`,
    'PLAN',
    prompt([PLANNER, line('User message: ', [`connection ${connectionId}`]), line('Observations so far: []')]),
    callTool(TOOL, { connection_id: connectionId })
  );
}

function answerStatus(connectionId: string, status: string): ScriptEntry {
  const row = line('Observations so far: ', [
    observed(TOOL),
    field('args', { connection_id: connectionId }),
    field('rowsPreview', [{ status }]),
  ]);
  return recording(
    `PLAN move: ${connectionId} is ${status}`,
    'PLAN',
    prompt([PLANNER, line('User message: ', [`connection ${connectionId}`]), row]),
    answer(`The status of your move for connection ${connectionId} is ${status}.`)
  );
}

export function moveConnectionsRecordings(): ScriptEntry[] {
  return [MOVED_CONNECTION, IN_PROGRESS_CONNECTION].flatMap((id) => [
    lookup(id),
    ...STATUSES.map((status) => answerStatus(id, status)),
  ]);
}
