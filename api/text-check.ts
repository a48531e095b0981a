import { firstTextProblem } from '../core/text/unsafe-text';
import { badRequest } from './errors';

/** Throws a 400 naming the first field that carries unsafe text or nests too deep (core/text/unsafe-text.ts). */
export function requireSafeText(fields: Record<string, unknown>): void {
  const problem = firstTextProblem(fields);
  if (problem) throw badRequest(problem.code, problem.message, { field: problem.field });
}
