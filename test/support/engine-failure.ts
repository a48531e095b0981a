import { EngineError } from '../../core/errors';

/** The EngineError `promise` rejects with; a promise that resolves, or rejects with anything else, fails the test. */
export async function engineFailure(promise: Promise<unknown>): Promise<EngineError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e
  );
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}
