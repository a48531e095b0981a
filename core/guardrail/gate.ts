import { isJsonObject, type JsonObject } from '../json';
import { findsUserRegex } from '../rules/regex-cache';
import { exceedsUserRegexText } from '../text/regex';

export function sanitizeUserText(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** Text too long for any author pattern to search counts as sensitive when there is a pattern to search for. */
export function isSensitive(text: string, patterns: readonly string[]): boolean {
  if (text.trim() === '' || patterns.length === 0) return false;
  return exceedsUserRegexText(text) || patterns.some((p) => findsUserRegex(p, text));
}

/** The context key the approval gate reads (`context.approval.granted`), set by the consumer, never by a model. */
export const APPROVAL_CONTEXT_KEY = 'approval';

/** Approval from the request (`approval_granted` / `approvalGranted`, booleans only) or `context.approval.granted`. */
export function approvalGranted(inputParams: JsonObject, context: JsonObject): boolean {
  for (const key of ['approval_granted', 'approvalGranted']) {
    const value = inputParams[key];
    if (typeof value === 'boolean') return value;
  }
  const approval = context[APPROVAL_CONTEXT_KEY];
  if (!isJsonObject(approval)) return false;
  const granted = approval['granted'];
  if (typeof granted === 'boolean') return granted;
  return typeof granted === 'string' && granted.trim().toLowerCase() === 'true';
}
