import * as grpc from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';

type Call = ReturnType<grpc.NextCall>;

/** A call that was never sent: it ends, once started, with a CANCELLED status saying why. */
function unsentCall(details: string): Call {
  return {
    start(_metadata, listener) {
      const status: grpc.StatusObject = { code: grpc.status.CANCELLED, details, metadata: new grpc.Metadata() };
      process.nextTick(() => listener?.onReceiveStatus?.(status));
    },
    cancelWithStatus: () => undefined,
    getPeer: () => '',
    sendMessageWithContext: () => undefined,
    sendMessage: () => undefined,
    startRead: () => undefined,
    halfClose: () => undefined,
    getAuthContext: () => null,
  };
}

/**
 * The SDK's default retry of a failed call (UNAVAILABLE, RESOURCE_EXHAUSTED, ... with backoff), except that a retry
 * that cannot be sent ends the call with CANCELLED instead of throwing. The SDK sends each retry from a timer, and
 * grpc-js refuses a call on a closed connection by throwing ("Channel has been shut down"): a call that failed and was
 * waiting out its backoff when its connection was closed (the API stopping while Temporal is down), or that failed
 * after it (a Temporal server stopping with the API), threw uncaught and ended the process. The first attempt is
 * sent from the caller's own stack, whose call that throw already rejects.
 */
export function closeSafeRetryInterceptor(): grpc.Interceptor {
  const retry = makeGrpcRetryInterceptor(defaultGrpcRetryOptions());
  return (options, nextCall) => {
    let attempts = 0;
    return retry(options, (attempt) => {
      if (++attempts === 1) return nextCall(attempt);
      try {
        return nextCall(attempt);
      } catch (err) {
        // CANCELLED: the call's owner closed its connection; a retryable code would only be retried again.
        return unsentCall(err instanceof Error ? err.message : String(err));
      }
    });
  };
}
