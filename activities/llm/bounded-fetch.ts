/**
 * The fetch the Anthropic SDK makes its requests with, bounded in time. The SDK's own timeout stops once the
 * headers arrive, so a server that sends them and then stalls the body held a model step until Temporal cut the
 * attempt off (240 s); and the SDK waits as long as a Retry-After asks (up to 2^31 ms) before its next try.
 * Here each try (headers and body) is aborted after `timeoutMs`, and a Retry-After asking for more than
 * `retryWaitMaxMs` is cut to it. A custom fetch is the one place that sees every try of the SDK's: a signal in the
 * request options is one for all of them, and doing the SDK's retries here would copy its retry rules.
 */
export function boundedFetch(timeoutMs: number, retryWaitMaxMs: number): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(input, { ...init, signal });
    return response.ok ? response : withRetryWaitCapped(response, retryWaitMaxMs);
  };
}

/** Milliseconds a header asks to wait, read as the SDK reads it (seconds or an HTTP date for Retry-After). */
function askedWaitMs(name: 'retry-after-ms' | 'retry-after', value: string | null): number {
  if (value === null) return 0;
  const number = Number.parseFloat(value);
  if (name === 'retry-after-ms') return number;
  return Number.isNaN(number) ? Date.parse(value) - Date.now() : number * 1000;
}

function withRetryWaitCapped(response: Response, capMs: number): Response {
  const asked = (['retry-after-ms', 'retry-after'] as const).map((name) =>
    askedWaitMs(name, response.headers.get(name))
  );
  if (!asked.some((ms) => ms > capMs)) return response;
  const headers = new Headers(response.headers);
  headers.delete('retry-after');
  headers.set('retry-after-ms', String(capMs));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
