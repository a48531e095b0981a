import { isJsonObject, type JsonObject } from '../json';
import { findsUserRegex } from '../rules/regex-cache';

export function sanitizeUserText(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

export function isSensitive(text: string, patterns: readonly string[]): boolean {
  if (text.trim() === '') return false;
  return patterns.some((p) => findsUserRegex(p, text));
}

/** Approval from the request (`approval_granted` / `approvalGranted`, booleans only) or `context.approval.granted`. */
export function approvalGranted(inputParams: JsonObject, context: JsonObject): boolean {
  for (const key of ['approval_granted', 'approvalGranted']) {
    const value = inputParams[key];
    if (typeof value === 'boolean') return value;
  }
  const approval = context['approval'];
  if (!isJsonObject(approval)) return false;
  const granted = approval['granted'];
  if (typeof granted === 'boolean') return granted;
  return typeof granted === 'string' && granted.trim().toLowerCase() === 'true';
}
