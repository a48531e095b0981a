import type { Context } from '@temporalio/activity';
import { CompleteAsyncError } from '@temporalio/activity';
import {
  ApplicationFailure,
  CancelledFailure,
  DefaultFailureConverter,
  defaultPayloadConverter,
  ensureApplicationFailure,
  type ProtoFailure,
} from '@temporalio/common';
import type { ActivityInterceptors } from '@temporalio/worker';
import { SEALED_FAILURE_OUTLINE } from '../../core/errors';
import { failedStepOfRun } from '../../core/turn/step-runs';

/**
 * Temporal's own encoding of a failure's message and stack trace into a payload (`encodedAttributes`, which the data
 * converter's codecs then encrypt), used for one failure at a time: an engine-wide failure converter with it would
 * leave `Encoded failure` as every failure's message, with or without keys (docs/security.md §8).
 */
const encoding = new DefaultFailureConverter({ encodeCommonAttributes: true });

/** What history keeps in place of a failure's message: its type and the step it failed in, never its text. */
function failureOutlineText(type: string, step: string): string {
  return `${type} in ${step} (message encrypted with PAYLOAD_ENCRYPTION_KEYS: convengine history or the console shows it)`;
}

/** The step a failure names: a step run's failed step (its StepRunFailure detail) within the run's activity. */
function stepOf(failure: ApplicationFailure, activityType: string): string {
  const failedStep = failedStepOfRun(failure.details);
  return failedStep === null || failedStep === activityType ? activityType : `${failedStep} (${activityType})`;
}

/**
 * Each link of the chain as Temporal's encoding left it (`Encoded failure`, no stack trace), its message the outline
 * instead, which its encoded attributes keep beside the text (workflows/sealed-failure.ts reads it back).
 */
function outlined(failure: ProtoFailure, outline: string): ProtoFailure {
  const attributes = failure.encodedAttributes ? defaultPayloadConverter.fromPayload(failure.encodedAttributes) : {};
  const text = typeof attributes === 'object' && attributes !== null ? attributes : {};
  // A cause that is no Temporal failure is stored without a type (Temporal's encoding).
  const causeType = failure.cause?.applicationFailureInfo?.type;
  const causeOutline = causeType ? `${causeType} (a cause; message encrypted)` : 'a cause (message encrypted)';
  return {
    ...failure,
    message: outline,
    stackTrace: '',
    encodedAttributes: defaultPayloadConverter.toPayload({ ...text, [SEALED_FAILURE_OUTLINE]: outline }),
    cause: failure.cause ? outlined(failure.cause, causeOutline) : null,
  };
}

/**
 * What an activity's failure leaves the worker as, with PAYLOAD_ENCRYPTION_KEYS set: the same failure (type,
 * retryability, category, details, causes) whose message and stack trace, and its causes', are in its encoded
 * attributes, which the codecs encrypt, and whose message in history is an outline (failureOutlineText). A failure's
 * text may quote what a user, the model or a tool wrote (a tool's error echoing its arguments, a schema's paths);
 * history is read by whoever may read the namespace. The SDK, the console and `convengine history` read the text
 * back once decrypted. A cancellation or an async completion is not a failure, and is returned as it is.
 */
export function sealedFailure(err: unknown, activityType: string): unknown {
  if (err instanceof CancelledFailure || err instanceof CompleteAsyncError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  const failure = ensureApplicationFailure(err);
  const outline = failureOutlineText(failure.type ?? 'Error', stepOf(failure, activityType));
  const sealed = ApplicationFailure.create({
    type: failure.type ?? undefined,
    message: outline,
    nonRetryable: failure.nonRetryable === true,
    details: failure.details ?? undefined,
    category: failure.category ?? undefined,
    nextRetryDelay: failure.nextRetryDelay ?? undefined,
  });
  // Temporal sends a failure's own proto when it has one (DefaultFailureConverter.errorToFailure): this one.
  sealed.failure = outlined(encoding.errorToFailure(failure, defaultPayloadConverter), outline);
  sealed.stack = `ApplicationFailure: ${outline}`;
  return sealed;
}

/**
 * The turn worker's outermost activity interceptor with PAYLOAD_ENCRYPTION_KEYS set (worker/worker.ts): every failure
 * an activity throws leaves it sealed (sealedFailure). The interceptors inside it, the step observer's log line and
 * span among them, see the failure as thrown.
 */
export function failureSealer(context: Context): ActivityInterceptors {
  return {
    inbound: {
      execute: async (input, next) => {
        try {
          return await next(input);
        } catch (err) {
          throw sealedFailure(err, context.info.activityType);
        }
      },
    },
  };
}
