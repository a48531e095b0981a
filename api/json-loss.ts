import type { JsonLoss } from '../core/json-loss';
import { shortNumber } from '../db/config/exact-json';
import { badRequest, type ApiError } from './errors';

/** The 400 a body with such a loss gets, naming the field, as unsafe text does (api/text-check.ts). */
export function jsonLossRefusal(loss: JsonLoss): ApiError {
  if (loss.kind === 'DUPLICATE_KEY') {
    const message = `The request body gives ${loss.field} more than once; send each key once.`;
    return badRequest('MALFORMED_BODY', message, { field: loss.field });
  }
  const message =
    `${loss.field} is the number ${shortNumber(loss.number)}, which a double (what the engine computes with) ` +
    'does not hold exactly; send it as a string to keep it as written.';
  return badRequest('INEXACT_NUMBER', message, { field: loss.field });
}
