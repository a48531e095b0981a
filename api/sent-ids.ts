import { ApiError } from './errors';
import { uuidParam } from './schemas/common';

const UUID = new RegExp(uuidParam.pattern);

/**
 * Runs a route's `work` on the canonical (lower-case) form of a conversation UUID the client sent, as conversations
 * and their turn workflows are named. Every ApiError it throws quotes the UUID as the client wrote it, wherever its
 * message names it (alone, or in a turn id `turn-<uuid>-<n>`), so the client recognises its own id in a TURN_NOT_FOUND
 * as in a NOT_HELD or a CONVERSATION_RETIRED, whichever layer wrote it. `sent` must have matched the UUID pattern
 * (the route's schema, or the turn id's pattern, checked it): a message quotes nothing else the client sent.
 */
export async function onConversationNamed<T>(sent: string, work: (conversationId: string) => Promise<T>): Promise<T> {
  if (!UUID.test(sent)) throw new Error('onConversationNamed takes only an id its route has checked is a UUID');
  const conversationId = sent.toLowerCase();
  try {
    return await work(conversationId);
  } catch (err) {
    // Each refusal is built for its request (no error object is shared), so it is reworded in place, keeping its
    // class (WorkerUnavailableError, TurnNotReadyError…) and its details, which name the workflow as Temporal does.
    if (err instanceof ApiError && sent !== conversationId) {
      err.message = err.message.replaceAll(conversationId, sent);
    }
    throw err;
  }
}
