import { DEMO_CONVERSATIONS } from '../../demo/conversations';

/** The FAQ seed conversation (greeting, then a question answered from ce_response): no tools. */
const SCRIPT = DEMO_CONVERSATIONS.find((c) => c.name === 'faq')?.turns.map((t) => t.message) ?? [];

export interface ParallelRound {
  wallMs: number;
  /** HTTP status of every turn, in no particular order. */
  statuses: number[];
  conversationIds: string[];
  turnsPerConversation: number;
}

async function conversation(apiUrl: string, statuses: number[]): Promise<string | null> {
  let conversationId: string | null = null;
  for (const message of SCRIPT) {
    const response: Response | null = await fetch(`${apiUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(conversationId ? { conversationId } : {}), message }),
      signal: AbortSignal.timeout(180_000),
    }).catch(() => null);
    statuses.push(response?.status ?? 0);
    if (!response?.ok) return conversationId;
    conversationId = ((await response.json()) as { conversationId: string }).conversationId;
  }
  return conversationId;
}

/** `count` conversations started at once through the HTTP API, each the FAQ script turn by turn. */
export async function parallelConversations(apiUrl: string, count: number): Promise<ParallelRound> {
  const statuses: number[] = [];
  const started = performance.now();
  const ids = await Promise.all(Array.from({ length: count }, () => conversation(apiUrl, statuses)));
  return {
    wallMs: performance.now() - started,
    statuses,
    conversationIds: ids.filter((id): id is string => id !== null),
    turnsPerConversation: SCRIPT.length,
  };
}

/** What PGlite's shared session produced under load (issue #20): another connection's statement. */
export const WIRE_PROTOCOL_ERROR =
  /portal "[^"]*" does not exist|prepared statement "[^"]*" does not exist|bind message supplies|protocol violation|unexpected message type/i;
