/**
 * The script of a scripted Messages-API server: which completion (or injected failure) answers
 * which request. Entries are tried in the order they were added; the first one whose call kind
 * and prompt matcher fit the request, and which still has uses left, answers it.
 */
export interface ScriptEntry {
  /** Call kind the request must carry in `x-convengine-call-kind` (e.g. `DA`, `INTENT`, `PLAN`). */
  kind?: string;
  /** Substring (case-sensitive) or RegExp tested against the system prompt + user text. */
  match?: string | RegExp;
  /**
   * Completion text. Objects and arrays are sent as their JSON text. A function is given the prompt the matcher saw
   * (system prompt + user text) and answers from it, as a model reading the prompt would.
   */
  reply?: unknown;
  /** Content blocks sent as they are instead of one text block of `reply` (a tool_use only, none at all). */
  blocks?: unknown[];
  /** The completion's stop_reason (default end_turn); `max_tokens` for a reply cut off, null for none. */
  stopReason?: string | null;
  /** Send 200, the headers and the first bytes of the body, then nothing more (a stalled body). */
  stallBody?: boolean;
  /** Send 200, the headers, then `chunkBytes` more of a reply's text every `everyMs`, never ending the body. */
  endlessBody?: { chunkBytes: number; everyMs: number };
  /**
   * Answer with an HTTP error instead of a completion (429, 529, 500, …), asking the client to wait `retryAfterMs`
   * (default 1), or `retryAfter` as a raw Retry-After header (seconds or a date) instead.
   */
  error?: { status: number; message?: string; retryAfterMs?: number; retryAfter?: string };
  /** Wait this long before answering (for timeout tests). */
  delayMs?: number;
  /** How many requests this entry answers (default 1). Ignored when `persistent`. */
  times?: number;
  /** Answers any number of requests. */
  persistent?: boolean;
  /** Shown in `unconsumed()` and recorded on the request it answered. */
  label?: string;
}

export interface RecordedRequest {
  /** 1-based arrival order across all requests. */
  seq: number;
  kind: string | null;
  model: string | null;
  system: string;
  userText: string;
  body: Record<string, unknown>;
  headers: Record<string, string>;
  /** Label (or index) of the entry that answered, null when unscripted. */
  answeredBy: string | null;
  status: number;
  /** Label of the fault-schedule rule that hit this request, if one did (see faults.ts). */
  fault?: string;
  /** For an endless body: the bytes of it sent, and whether the connection closed (the client hung up). */
  endless?: { sentBytes: number; closed: boolean };
  /** When (Date.now()) the client closed the connection before the whole answer was sent (it aborted the call). */
  hungUpAt?: number;
}

interface LiveEntry {
  entry: ScriptEntry;
  index: number;
  remaining: number;
}

export interface ScriptMatch {
  entry: ScriptEntry;
  name: string;
}

function describe(live: LiveEntry): string {
  return live.entry.label ?? `#${live.index}${live.entry.kind ? ` ${live.entry.kind}` : ''}`;
}

function promptMatches(matcher: ScriptEntry['match'], text: string): boolean {
  if (matcher === undefined) return true;
  if (typeof matcher === 'string') return text.includes(matcher);
  matcher.lastIndex = 0;
  return matcher.test(text);
}

/** The mutable script held by a server: take() consumes one use of the first fitting entry. */
export class Script {
  private entries: LiveEntry[] = [];
  private added = 0;

  push(entries: readonly ScriptEntry[]): void {
    for (const entry of entries) {
      this.added += 1;
      this.entries.push({ entry, index: this.added, remaining: entry.persistent ? Infinity : (entry.times ?? 1) });
    }
  }

  reset(entries: readonly ScriptEntry[] = []): void {
    this.entries = [];
    this.push(entries);
  }

  take(kind: string | null, promptText: string): ScriptMatch | null {
    const live = this.entries.find(
      (e) =>
        e.remaining > 0 &&
        (e.entry.kind === undefined || e.entry.kind === kind) &&
        promptMatches(e.entry.match, promptText)
    );
    if (!live) return null;
    live.remaining -= 1;
    return { entry: live.entry, name: describe(live) };
  }

  /** One-shot entries never used; persistent entries are never reported. */
  unconsumed(): string[] {
    return this.entries.filter((e) => e.remaining > 0 && e.remaining !== Infinity).map(describe);
  }
}

/** The text of a reply as the model would send it; a reply function is answered for `prompt`. */
export function replyText(reply: unknown, prompt = ''): string {
  if (typeof reply === 'function') return replyText((reply as (prompt: string) => unknown)(prompt));
  if (typeof reply === 'string') return reply;
  if (reply === undefined) return '';
  return JSON.stringify(reply);
}
