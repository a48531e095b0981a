/**
 * The console's calls to the ConvEngine API. With API_TOKEN set, every call carries
 * `Authorization: Bearer <token>`; the token is kept for this browser tab only (sessionStorage).
 */
const TOKEN_KEY = 'convengine.apiToken';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY) ?? '',
  set: (value) => (value ? sessionStorage.setItem(TOKEN_KEY, value) : sessionStorage.removeItem(TOKEN_KEY)),
};

function headers(extra = {}) {
  const value = token.get();
  return { ...(value ? { authorization: `Bearer ${value}` } : {}), ...extra };
}

/** GET or POST a JSON route; a non-2xx answer (other than 202) throws ApiError with the envelope's code. */
export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (res.ok) return json;
  const error = json?.error ?? {};
  throw new ApiError(res.status, error.code ?? `HTTP_${res.status}`, error.message ?? res.statusText, error.details);
}

/**
 * Follows a conversation's audit stream (SSE). EventSource cannot send the bearer header, so this
 * reads the stream with fetch; `onEvent({event, data})` gets every event. Stop it with the signal.
 */
export async function followAudits(conversationId, onEvent, signal) {
  const res = await fetch(`/api/v1/conversation/${conversationId}/stream`, { headers: headers(), signal });
  if (!res.ok || !res.body) return;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      onEvent({ event, data: data ? JSON.parse(data) : null });
    }
  }
}
