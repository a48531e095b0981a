import {
  ApplicationFailure,
  ApplicationFailureCategory,
  CancelledFailure,
  DefaultFailureConverter,
  defaultPayloadConverter,
  type ProtoFailure,
} from '@temporalio/common';
import { sealedFailure } from '../../../activities/runtime/sealed-failure';
import { resealed, sealedOutline } from '../../../workflows/sealed-failure';

const MARKER = 'MARKER-DAMSON-3307';
const converter = new DefaultFailureConverter();

/** The failure as Temporal would store it, with its encoded attributes left out: what a reader without the key sees. */
function storedText(failure: ProtoFailure): string {
  const strip = (f: ProtoFailure | null | undefined): unknown =>
    f ? { ...f, encodedAttributes: undefined, cause: strip(f.cause) } : null;
  return JSON.stringify(strip(failure));
}

describe('sealedFailure (activities/runtime/sealed-failure.ts)', () => {
  it('keeps the type, retryability, category, details and cause chain; history keeps only the outline', () => {
    const thrown = ApplicationFailure.create({
      type: 'TOOL_ARGS_INVALID',
      message: `no order ${MARKER}`,
      nonRetryable: true,
      details: [{ failedAttempt: 2 }],
      category: ApplicationFailureCategory.BENIGN,
      cause: new TypeError(`cannot read ${MARKER}`),
    });
    const sealed = sealedFailure(thrown, 'McpToolCall') as ApplicationFailure;
    expect(sealed).toBeInstanceOf(ApplicationFailure);
    expect(sealed).toMatchObject({
      type: 'TOOL_ARGS_INVALID',
      nonRetryable: true,
      details: [{ failedAttempt: 2 }],
      category: ApplicationFailureCategory.BENIGN,
    });
    const outline =
      'TOOL_ARGS_INVALID in McpToolCall (message encrypted with PAYLOAD_ENCRYPTION_KEYS: convengine history or the console shows it)';
    expect(sealed.message).toBe(outline);

    const stored = converter.errorToFailure(sealed, defaultPayloadConverter);
    expect(storedText(stored)).not.toContain(MARKER);
    expect(stored.message).toBe(outline);
    // Temporal stores a cause that is no failure of its own without its class.
    expect(stored.cause?.message).toBe('a cause (message encrypted)');
    expect(stored.applicationFailureInfo).toMatchObject({ type: 'TOOL_ARGS_INVALID', nonRetryable: true });

    // Read back (the SDK, once the codec decrypted the attributes): the text in full, the cause's too.
    const read = converter.failureToError(stored, defaultPayloadConverter);
    expect(read.message).toBe(`no order ${MARKER}`);
    expect(read.stack).toContain(`no order ${MARKER}`);
    expect((read.cause as Error | undefined)?.message).toBe(`cannot read ${MARKER}`);
    expect(sealedOutline(read)).toBe(outline);
  });

  it("names a step run's failed step, and seals an error that is no failure as Temporal would type it", () => {
    const run = ApplicationFailure.create({
      type: 'LLM_OUTPUT_INVALID',
      message: `schema mismatch: /${MARKER} must NOT have additional properties`,
      details: [{ ran: [], failedStep: { name: 'SchemaExtraction', callKey: 'k' }, failedAfterMs: 3 }],
    });
    expect((sealedFailure(run, 'RegularSteps') as Error).message).toMatch(
      /^LLM_OUTPUT_INVALID in SchemaExtraction \(RegularSteps\) \(message encrypted/
    );
    const plain = sealedFailure(new RangeError(`bad ${MARKER}`), 'Memory') as ApplicationFailure;
    expect(plain).toMatchObject({ type: 'RangeError', nonRetryable: false });
    expect(storedText(converter.errorToFailure(plain, defaultPayloadConverter))).not.toContain(MARKER);
  });

  it('leaves a cancellation as it is: the worker reports it as cancelled', () => {
    const cancelled = new CancelledFailure('cancelled');
    expect(sealedFailure(cancelled, 'McpToolCall')).toBe(cancelled);
  });
});

describe('resealed (workflows/sealed-failure.ts)', () => {
  it('sends a sealed failure back into history with its outline, the text still in its attributes', () => {
    const sealed = sealedFailure(new TypeError(`refused ${MARKER}`), 'Memory');
    const received = converter.failureToError(
      converter.errorToFailure(sealed, defaultPayloadConverter),
      defaultPayloadConverter
    );
    expect(received.message).toBe(`refused ${MARKER}`);
    // As the turn's own failure carries it (its cause): without resealing, the decrypted message went back in clear.
    const wrapped = (cause: Error) =>
      converter.errorToFailure(
        ApplicationFailure.create({ type: 'TURN_FAILED', message: 'x', cause }),
        defaultPayloadConverter
      );
    expect(storedText(wrapped(received))).toContain(MARKER);
    expect(storedText(wrapped(resealed(received)))).not.toContain(MARKER);
    expect(wrapped(resealed(received)).cause?.message).toMatch(/^TypeError in Memory \(message encrypted/);
  });

  it('leaves a failure that is not sealed unchanged', () => {
    const plain = converter.failureToError(
      converter.errorToFailure(ApplicationFailure.create({ message: 'plain text' }), defaultPayloadConverter),
      defaultPayloadConverter
    );
    expect(sealedOutline(plain)).toBeNull();
    expect((resealed(plain) as ApplicationFailure).failure?.message).toBe('plain text');
  });
});
