/**
 * `work`'s outcome (its error, when it fails), or 'still waiting' once `ms` have passed: how a test of a bound tells
 * a statement that ended at it from one that waits for a frozen backend, as it did without one.
 */
export async function within<T>(work: Promise<T>, ms: number): Promise<T | unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([work.catch((err: unknown) => err), hung]);
  } finally {
    clearTimeout(timer);
  }
}
