/**
 * Progress messages of one conversation as they arrive: reads its SSE stream
 * (`GET /api/v1/conversation/<id>/stream`) and hands the text of each VERBOSE_PROGRESS event to
 * `onProgress`. The stream answers 404 until the turn's first step has created the conversation,
 * so a new conversation is retried until it exists. `stop()` closes the stream and reads the audit
 * rows written after the last event it saw, so nothing written before the reply is missed; it
 * returns the last audit id seen, where the next turn's watcher resumes (Last-Event-ID).
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface ProgressWatch {
  stop(): Promise<number>;
}

interface SseEvent {
  event: string;
  id: number | null;
  data: string;
}

interface AuditRow {
  auditId: number;
  stage: string;
  payload: { text?: unknown };
}

const RETRY_MS = 50;

function parseEvent(block: string): SseEvent {
  const event: SseEvent = { event: 'message', id: null, data: '' };
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event.event = value;
    else if (field === 'id') event.id = Number(value);
    else if (field === 'data') event.data += value;
  }
  return event;
}

async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (e: SseEvent) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      onEvent(parseEvent(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
    }
  }
}

export function watchProgress(
  baseUrl: string,
  conversationId: string,
  headers: Record<string, string>,
  after: number,
  onProgress: (text: string) => void
): ProgressWatch {
  const controller = new AbortController();
  let last = after;
  const seen = (auditId: number, stage: string, text: unknown) => {
    if (auditId <= last) return;
    last = auditId;
    if (stage === 'VERBOSE_PROGRESS' && typeof text === 'string') onProgress(text);
  };
  const onEvent = (e: SseEvent) => {
    if (e.id === null) return;
    const data = JSON.parse(e.data) as { verbose?: { text?: unknown } | null };
    seen(e.id, e.event, data.verbose?.text);
  };
  const streamUrl = `${baseUrl}/api/v1/conversation/${conversationId}/stream`;
  const reading = (async () => {
    while (!controller.signal.aborted) {
      const response = await fetch(streamUrl, {
        headers: { ...headers, 'last-event-id': String(last) },
        signal: controller.signal,
      });
      if (response.status === 404 || response.status === 429) {
        // Not there yet, or the API has as many streams open as it allows: try again (after Retry-After).
        await response.body?.cancel();
        const retryAfterMs = Number(response.headers.get('retry-after') ?? 0) * 1000;
        await sleep(Math.min(Math.max(RETRY_MS, retryAfterMs), 10_000), undefined, { signal: controller.signal });
        continue;
      }
      if (!response.ok || !response.body) return;
      await readEvents(response.body, onEvent);
    }
  })().catch(() => undefined); // aborted by stop(), or the API went away: stop() drains what is left

  return {
    async stop() {
      controller.abort();
      await reading;
      const response = await fetch(`${baseUrl}/api/v1/conversation/audit/${conversationId}`, { headers });
      if (response.ok) {
        for (const row of (await response.json()) as AuditRow[]) seen(row.auditId, row.stage, row.payload.text);
      }
      return last;
    },
  };
}
