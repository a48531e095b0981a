import { createHash } from 'node:crypto';
import { DrizzleQueryError } from 'drizzle-orm';
import { EngineError, ErrorType } from '../../core/errors';
import { sqlStateOf } from '../error-text';
import type { Database } from '../pool';

/** How ce_retired_conversation names an id: the sha256 (hex) of its lower-case form, as SQL's RETIRED_DIGEST. */
export const retiredDigest = (conversationId: string) =>
  createHash('sha256').update(conversationId.toLowerCase()).digest('hex');

/** RETIRED_DIGEST(column): the same digest of a uuid column, in SQL. */
export const retiredDigestSql = (column: string) => `encode(sha256(convert_to(${column}::text, 'UTF8')), 'hex')`;

/** Whether the conversation was pruned or erased: it takes no turn again, and its turns are not shown. */
export async function isRetired(db: Database, conversationId: string): Promise<boolean> {
  const { rowCount } = await db.$client.query('SELECT 1 FROM ce_retired_conversation WHERE conversation_digest = $1', [
    retiredDigest(conversationId),
  ]);
  return (rowCount ?? 0) > 0;
}

/** What the ce_conversation_not_retired trigger (migration 0027) refuses a retired id's new conversation row with. */
const RETIRED_REFUSAL = 'CE410';

/**
 * Runs `create`, a statement that may insert the conversation's row; the trigger's refusal of a retired id becomes the
 * typed CONVERSATION_RETIRED, which no retry mends.
 */
export async function refusingRetired<T>(conversationId: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (err) {
    const driver = err instanceof DrizzleQueryError ? err.cause : err;
    if (sqlStateOf(driver) !== RETIRED_REFUSAL) throw err;
    throw new EngineError(
      ErrorType.ConversationRetired,
      `conversation ${conversationId} was pruned or erased: it takes no turn again`
    );
  }
}

/** Takes the id's creation lock for the transaction (migration 0027): what an erase holds while it reads and deletes. */
export async function lockConversationCreation(client: Pick<Database['$client'], 'query'>, conversationId: string) {
  await client.query('SELECT ce_conversation_lock($1)', [conversationId]);
}
