import { sleep } from '@temporalio/workflow';
import type { TurnInput, TurnResult } from '../../../core/turn/contracts';
import {
  conversationTurn as released,
  conversationTurnV2 as releasedV2,
  conversationTurnV3 as releasedV3,
} from '../../../workflows/conversation-turn';

export * from '../../../workflows/messages';

/**
 * A deliberately non-deterministic edit of the turn workflow: it waits on a timer before the first
 * step. Histories recorded by the released workflow start with an activity, so replaying them
 * through this one must fail — the replay test proves CI would catch such a change.
 */
export async function conversationTurn(input: TurnInput): Promise<TurnResult> {
  await sleep('1 millisecond');
  return released(input);
}

export async function conversationTurnV2(input: TurnInput): Promise<TurnResult> {
  await sleep('1 millisecond');
  return releasedV2(input);
}

export async function conversationTurnV3(input: TurnInput): Promise<TurnResult> {
  await sleep('1 millisecond');
  return releasedV3(input);
}
