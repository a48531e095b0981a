import type { Payload } from '../core/session';
import type { DemoSend } from './demo-runner';
import { replyTextOf } from './in-process-send';

interface MessageResponse {
  conversationId: string;
  intent: string;
  state: string;
  payload: Payload;
  turn?: { workflowId: string; outcome: string };
  error?: { code: string; message: string };
}

/** The demo transport over the HTTP API: one POST /api/v1/conversation/message per turn. */
export function httpDemoSend(baseUrl: string, token?: string): DemoSend {
  return async (conversationId, turn) => {
    const response = await fetch(`${baseUrl}/api/v1/conversation/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({
        ...(conversationId === null ? {} : { conversationId }),
        message: turn.message,
        ...(turn.inputParams ? { inputParams: turn.inputParams } : {}),
      }),
    });
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
