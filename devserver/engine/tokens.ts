/**
 * Task tokens are opaque to SDKs. Each names exactly one attempt of one task, so a late or
 * duplicate completion from an earlier attempt resolves to nothing and gets NOT_FOUND.
 */
import { invalidArgument } from '../errors';

export type TaskToken =
  | { kind: 'workflow'; runId: string; seq: number }
  | { kind: 'activity'; runId: string; scheduledEventId: number; attempt: number }
  | { kind: 'query'; queryId: string };

export function workflowTaskToken(runId: string, seq: number): Buffer {
  return Buffer.from(`w:${runId}:${seq}`);
}

export function activityTaskToken(runId: string, scheduledEventId: number, attempt: number): Buffer {
  return Buffer.from(`a:${runId}:${scheduledEventId}:${attempt}`);
}

export function queryTaskToken(queryId: string): Buffer {
  return Buffer.from(`q:${queryId}`);
}

export function parseTaskToken(bytes: Uint8Array | undefined): TaskToken {
  const text = bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : '';
  const parts = text.split(':');
  const number = (index: number): number => {
    const value = Number(parts[index]);
    if (!Number.isInteger(value)) throw invalidArgument('Invalid task token.');
    return value;
  };
  if (parts[0] === 'w' && parts.length === 3 && parts[1]) return { kind: 'workflow', runId: parts[1], seq: number(2) };
  if (parts[0] === 'a' && parts.length === 4 && parts[1]) {
    return { kind: 'activity', runId: parts[1], scheduledEventId: number(2), attempt: number(3) };
  }
  if (parts[0] === 'q' && parts.length === 2 && parts[1]) return { kind: 'query', queryId: parts[1] };
  throw invalidArgument('Invalid task token.');
}
