import { EnvError } from '../../config/env';

/** The issues an EnvError that `fn` throws names, variable → reason; fails when `fn` throws none. */
export function issuesOf(fn: () => unknown): Record<string, string> {
  try {
    fn();
  } catch (err) {
    if (err instanceof EnvError) return Object.fromEntries(err.issues.map((i) => [i.variable, i.reason]));
    throw err;
  }
  throw new Error('expected EnvError');
}
