/** How far one try of the SDK's may go: its time (headers and body), its body's size and the wait it accepts. */
export interface FetchBounds {
  timeoutMs: number;
  /** Most bytes of a response body read; past them the try fails with LlmBodyTooLargeError. */
  maxBodyBytes: number;
  retryWaitMaxMs: number;
}

/**
 * A response body longer than FetchBounds.maxBodyBytes: the model's reply is bad output (anthropic-client.ts), as
 * one over LLM_REPLY_MAX_BYTES is. Carries no part of the body.
 */
export class LlmBodyTooLargeError extends Error {
  override readonly name = 'LlmBodyTooLargeError';

  constructor(readonly maxBytes: number) {
    super(`reply body over ${maxBytes} bytes`);
  }
}

/**
 * The fetch the Anthropic SDK makes its requests with, bounded in time and size. The SDK's own timeout stops once
 * the headers arrive, and it reads the whole body before anything looks at its size, so a server that sent the
 * headers and then stalled, or sent an endless body, held a model step until Temporal cut the attempt off (240 s),
 * and the abandoned read went on filling memory. Here each try (headers and body) is aborted after `timeoutMs`,
 * a body stops being read past `maxBodyBytes`, and a Retry-After asking for more than `retryWaitMaxMs` is cut to it.
 * A custom fetch is the one place that sees every try of the SDK's: a signal in the request options is one for all
 * of them, and doing the SDK's retries here would copy its retry rules.
 */
export function boundedFetch(bounds: FetchBounds): typeof fetch {
  return async (input, init) => {
    const attempt = boundedAttempt(bounds.timeoutMs, init?.signal ?? undefined);
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: attempt.signal });
    } catch (err) {
      attempt.release();
      throw err;
    }
    const bounded = withBodyBounded(response, attempt, bounds.maxBodyBytes);
    return bounded.ok ? bounded : withRetryWaitCapped(bounded, bounds.retryWaitMaxMs);
  };
}

/** One try's abort: at its deadline, when the SDK aborts it, or when its body is over the size; `release` ends it. */
interface BoundedAttempt {
  signal: AbortSignal;
  abort(reason: unknown): void;
  release(): void;
}

/**
 * A plain timer, not AbortSignal.timeout: Node holds the signals `AbortSignal.any` combines only weakly, so once the
 * fetch returned nothing kept the deadline alive, and a collection in the middle of a body dropped it with its timer
 * (the body was read on past the deadline, without end). The timer list holds this timer, and the timer the
 * controller, until the body is read, failed or cancelled.
 */
function boundedAttempt(timeoutMs: number, sdkSignal: AbortSignal | undefined): BoundedAttempt {
  const controller = new AbortController();
  const abort = (reason: unknown) => controller.abort(reason);
  const deadline = setTimeout(
    () => abort(new DOMException(`no whole reply within ${timeoutMs} ms`, 'TimeoutError')),
    timeoutMs
  );
  const abortWithSdk = () => abort(sdkSignal?.reason);
  if (sdkSignal?.aborted) abortWithSdk();
  sdkSignal?.addEventListener('abort', abortWithSdk, { once: true });
  const release = () => {
    clearTimeout(deadline);
    sdkSignal?.removeEventListener('abort', abortWithSdk);
  };
  return { signal: controller.signal, abort, release };
}

/**
 * The response with its body read through a counter. Past `maxBytes` the body fails with LlmBodyTooLargeError and
 * the fetch is aborted, which closes the connection; a body read to its end, failed or cancelled releases the try.
 */
function withBodyBounded(response: Response, attempt: BoundedAttempt, maxBytes: number): Response {
  if (response.body === null) {
    attempt.release();
    return response;
  }
  const source = response.body.getReader();
  let received = 0;
  const fail = (reason: unknown) => {
    attempt.abort(reason);
    attempt.release();
    source.cancel(reason).catch(() => undefined);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await source.read().catch((err: unknown) => {
          fail(err);
          throw err;
        });
        if (chunk.done) {
          attempt.release();
          controller.close();
          return;
        }
        received += chunk.value.byteLength;
        if (received <= maxBytes) return controller.enqueue(chunk.value);
        const tooLarge = new LlmBodyTooLargeError(maxBytes);
        fail(tooLarge);
        controller.error(tooLarge);
      },
      cancel: (reason) => fail(reason),
    },
    { highWaterMark: 0 }
  );
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
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
