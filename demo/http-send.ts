import { randomUUID } from 'node:crypto';
import type { Payload } from '../core/session';
import type { DemoSend } from './demo-runner';
import { replyTextOf } from './in-process-send';
import { watchProgress } from './progress-stream';

interface MessageResponse {
  conversationId: string;
  intent: string;
  state: string;
  payload: Payload;
  turn?: { workflowId: string; outcome: string };
  error?: { code: string; message: string };
}

/** Told each progress message (ce_verbose) of a turn while the turn runs. */
export type DemoProgress = (conversationId: string, text: string) => void;

/**
 * The demo transport over the HTTP API: one POST /api/v1/conversation/message per turn. With
 * `onProgress`, the conversation's SSE stream is read while the turn runs; a new conversation gets
 * its id here so its stream can be opened before the first reply.
 */
export function httpDemoSend(baseUrl: string, token?: string, onProgress?: DemoProgress): DemoSend {
  const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const lastSeen = new Map<string, number>();
  return async (existing, turn) => {
    const conversationId = existing ?? randomUUID();
    const watch = onProgress
      ? watchProgress(baseUrl, conversationId, auth, lastSeen.get(conversationId) ?? 0, (text) =>
          onProgress(conversationId, text)
        )
      : null;
    let response: Response;
    try {
      response = await fetch(`${baseUrl}/api/v1/conversation/message`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth },
        body: JSON.stringify({
          conversationId,
          message: turn.message,
          ...(turn.inputParams ? { inputParams: turn.inputParams } : {}),
        }),
      });
    } finally {
      if (watch) lastSeen.set(conversationId, await watch.stop());
    }
    const body = (await response.json()) as MessageResponse;
    if (!response.ok || body.error) {
      throw new Error(`HTTP ${response.status} ${body.error?.code ?? ''}: ${body.error?.message ?? 'no body'}`);
    }
    return {
      conversationId: body.conversationId,
      reply: replyTextOf(body.payload),
      intent: body.intent,
      state: body.state,
      outcome: body.turn?.outcome ?? null,
      workflowId: body.turn?.workflowId ?? null,
    };
  };
}
