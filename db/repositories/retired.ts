import { createHash } from 'node:crypto';
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
