/**
 * The console's calls to the ConvEngine API. With API_TOKEN set, every call carries
 * `Authorization: Bearer <token>` with the token the operator gave (its routes take OPERATOR_API_TOKEN when that is
 * set); the token is kept for this browser tab only (sessionStorage).
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

/**
 * A route's path, each value put in it encoded (encodeURIComponent): `apiPath\`/api/v1/console/turns/${id}\``. A value
 * stays one path segment or one query value whatever it holds (`../../v1/whatif?…` included), so no text from an
 * address or an answer can make the console call another route with the operator's token.
 */
export function apiPath(strings, ...values) {
  return values.reduce((path, value, i) => `${path}${encodeURIComponent(value)}${strings[i + 1]}`, strings[0]);
}

/** An answer this console cannot read (not JSON, or not the shape the page expects): said as such, not as a crash. */
export function unexpectedAnswer(status, what) {
  return new ApiError(status, 'UNEXPECTED_ANSWER', `The API's answer is not ${what} as this console reads it.`);
}

/** GET or POST a JSON route; a non-2xx answer (other than 202) throws ApiError with the envelope's code. */
export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    throw unexpectedAnswer(res.status, 'JSON');
  }
  if (res.ok) return json;
  const error = json?.error ?? {};
  throw new ApiError(res.status, error.code ?? `HTTP_${res.status}`, error.message ?? res.statusText, error.details);
}

/**
 * Follows a conversation's audit stream (SSE). EventSource cannot send the bearer header, so this
 * reads the stream with fetch; `onEvent({event, data})` gets every event. Stop it with the signal.
 */
export async function followAudits(conversationId, onEvent, signal) {
  const res = await fetch(apiPath`/api/v1/conversation/${conversationId}/stream`, { headers: headers(), signal });
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
