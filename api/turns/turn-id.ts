import type { Client, WorkflowHandle } from '@temporalio/client';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow';
import type { TurnInput } from '../../core/turn/contracts';
import { badRequest } from '../errors';

const TURN_ID = /^turn-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-([1-9][0-9]*)$/i;

export function parseTurnId(workflowId: string): { conversationId: string; turnNumber: number } {
  const match = TURN_ID.exec(workflowId);
  if (!match?.[1] || !match[2])
    throw badRequest('INVALID_TURN_ID', `${workflowId} is not a turn id (turn-<uuid>-<n>).`);
  return { conversationId: match[1].toLowerCase(), turnNumber: Number(match[2]) };
}

/** The input a turn was started with, read back from its first history event. */
export async function originalTurnInput(client: Client, handle: WorkflowHandle): Promise<TurnInput> {
  const history = await handle.fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  if (!payloads?.[0]) throw new Error(`turn ${handle.workflowId} has no start input in its history`);
  // fetchHistory returns payloads as stored: through the codecs, a large input is a claim reference (db/claims/).
  return decodeFromPayloadsAtIndex<TurnInput>(client.options.loadedDataConverter, 0, payloads);
}
