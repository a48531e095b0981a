import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { LLM_CALL_KIND_HEADER } from '../core/llm';
import { pushKeepingLatest } from '../core/bounded-list';
import { FaultSchedule, type FaultDecision, type LlmFaultRule } from './faults';
import { replyText, Script, type RecordedRequest, type ScriptEntry } from './script';

/** Header carrying the LLM call kind; the engine's client sets it on every request. */
export const CALL_KIND_HEADER = LLM_CALL_KIND_HEADER;

export interface ScriptedLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  script?: readonly ScriptEntry[];
  /** Answers what the script does not (a reply, or undefined for the loud UNSCRIPTED error). */
  fallback?: ScriptFallback;
  /** Faults injected before the script answers (see scripted-llm/faults.ts). */
  faults?: readonly LlmFaultRule[];
  /**
   * How many of the latest requests `requests` keeps (default: all, which tests read). A server that runs
   * for long, as `convengine start`'s demo model does, sets it: each kept request holds its whole prompt.
   */
  keptRequests?: number;
}

export type ScriptFallback = (request: RecordedRequest) => Promise<unknown> | unknown;

export interface ScriptedLlm {
  /** Base URL for the Anthropic SDK (`baseURL`), e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  push(entries: readonly ScriptEntry[]): void;
  setScript(entries: readonly ScriptEntry[]): void;
  /** Every request received (the latest `keptRequests` of them), in arrival order (failed and unscripted ones too). */
  readonly requests: RecordedRequest[];
  /** Requests of one call kind. */
  requestsOf(kind: string): RecordedRequest[];
  /** Labels of one-shot entries that were never used. */
  unconsumed(): string[];
  /** Forgets recorded requests (the script stays). */
  clearRequests(): void;
  /** Replaces the fault schedule (an empty list turns faults off); counting starts again. */
  setFaults(rules: readonly LlmFaultRule[]): void;
  /** Faults injected so far, by rule label. */
  injectedFaults(): Record<string, number>;
  stop(): Promise<void>;
}

type Body = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (block && typeof block === 'object' && 'text' in block ? String(block.text) : ''))
    .join('\n');
}

function userTextOf(body: Body): string {
  const messages = Array.isArray(body['messages']) ? (body['messages'] as Body[]) : [];
  return messages
    .filter((m) => m['role'] === 'user')
    .map((m) => textOf(m['content']))
    .join('\n');
}

function headerMap(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') out[k] = v;
  return out;
}

async function readBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const parsed: unknown = text === '' ? {} : JSON.parse(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Body) : {};
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function errorBody(status: number, message: string): unknown {
  const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error';
  return { type: 'error', error: { type: status === 400 ? 'invalid_request_error' : type, message } };
}

function messageBody(
  seq: number,
  model: string | null,
  text: string,
  entry: Pick<ScriptEntry, 'blocks' | 'stopReason'> = {}
): unknown {
  return {
    id: `msg_scripted_${seq}`,
    type: 'message',
    role: 'assistant',
    model: model ?? 'scripted',
    content: entry.blocks ?? [{ type: 'text', text }],
    stop_reason: entry.stopReason === undefined ? 'end_turn' : entry.stopReason,
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: Math.max(1, Math.ceil(text.length / 4)) },
  };
}

/** Unreferenced: a delayed answer whose client hung up keeps no test process alive until it is due. */
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

function recordOf(seq: number, body: Body, headers: Record<string, string>): RecordedRequest {
  return {
    seq,
    kind: headers[CALL_KIND_HEADER] ?? null,
    model: typeof body['model'] === 'string' ? body['model'] : null,
    system: textOf(body['system']),
    userText: userTextOf(body),
    body,
    headers,
    answeredBy: null,
    status: 0,
  };
}

/**
 * The start of a completion whose text never ends, a chunk at a time; a chunk is skipped while the client does not
 * read (the server's memory stays flat), and the sending stops when the connection closes.
 */
function sendEndlessBody(res: ServerResponse, record: RecordedRequest, pace: NonNullable<ScriptEntry['endlessBody']>) {
  const endless = { sentBytes: 0, closed: false };
  record.endless = endless;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(
    `{"id":"msg_scripted_${record.seq}","type":"message","role":"assistant","content":[{"type":"text","text":"`
  );
  const chunk = 'a'.repeat(pace.chunkBytes);
  const timer = setInterval(() => {
    if (res.writableNeedDrain) return;
    endless.sentBytes += chunk.length;
    res.write(chunk);
  }, pace.everyMs);
  res.on('close', () => {
    clearInterval(timer);
    endless.closed = true;
  });
}

/** Answers a request the fault schedule picked; true when nothing is left for the script to do. */
async function answerFault(res: ServerResponse, record: RecordedRequest, decision: FaultDecision): Promise<boolean> {
  record.fault = decision.label;
  const { fault } = decision;
  if ('delayMs' in fault) {
    await sleep(fault.delayMs);
    return false;
  }
  record.answeredBy = `fault: ${decision.label}`;
  if ('status' in fault) {
    record.status = fault.status;
    send(res, fault.status, errorBody(fault.status, fault.message ?? `injected ${fault.status}`), {
      'retry-after-ms': '1',
    });
    return true;
  }
  record.status = 200;
  send(res, 200, messageBody(record.seq, record.model, fault.text));
  return true;
}

/** The requests a server received: the latest `kept` of them, and how many came (the next one's `seq`). */
class RequestLog {
  readonly requests: RecordedRequest[] = [];
  received = 0;

  constructor(private readonly kept: number | undefined) {}

  record(body: Body, headers: Record<string, string>): RecordedRequest {
    this.received += 1;
    const record = recordOf(this.received, body, headers);
    pushKeepingLatest(this.requests, record, this.kept);
    return record;
  }

  clear(): void {
    this.requests.length = 0;
    this.received = 0;
  }
}

/** Answers one Messages request from the script (or fails it loudly), recording it first. */
function createHandler(script: Script, log: RequestLog, faults: FaultSchedule, fallback?: ScriptFallback) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/messages')) {
      send(res, 404, errorBody(404, `scripted LLM only serves POST /v1/messages (got ${req.method} ${req.url})`));
      return;
    }
    const record = log.record(await readBody(req), headerMap(req));
    res.once('close', () => {
      if (!res.writableFinished) record.hungUpAt = Date.now();
    });
    const prompt = `${record.system}\n${record.userText}`;
    const fault = faults.next(record.kind, prompt);
    if (fault && (await answerFault(res, record, fault))) return;
    const match = script.take(record.kind, prompt);
    const fallbackReply = match ? undefined : await fallback?.(record);
    if (!match && fallbackReply !== undefined) {
      record.answeredBy = 'fallback';
      record.status = 200;
      send(res, 200, messageBody(record.seq, record.model, replyText(fallbackReply)));
      return;
    }
    if (!match) {
      record.status = 400;
      const message = `UNSCRIPTED LLM call (kind=${record.kind ?? 'none'}): ${excerpt(`${record.system} | ${record.userText}`)}`;
      send(res, 400, errorBody(400, message), { 'x-should-retry': 'false' });
      return;
    }
    record.answeredBy = match.name;
    if (match.entry.delayMs) await sleep(match.entry.delayMs);
    const { error } = match.entry;
    if (error) {
      record.status = error.status;
      const wait: Record<string, string> =
        error.retryAfter === undefined
          ? { 'retry-after-ms': String(error.retryAfterMs ?? 1) }
          : { 'retry-after': error.retryAfter };
      send(res, error.status, errorBody(error.status, error.message ?? `scripted ${error.status}`), wait);
      return;
    }
    record.status = 200;
    if (match.entry.stallBody) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"id":"msg_scripted_${record.seq}",`);
      return;
    }
    if (match.entry.endlessBody) return sendEndlessBody(res, record, match.entry.endlessBody);
    send(res, 200, messageBody(record.seq, record.model, replyText(match.entry.reply, prompt), match.entry));
  };
}

/**
 * A request Node's parser refused before any handler ran (headers over its 16 KiB, a malformed request line) answered
 * as the Messages API answers an error: a JSON body that says what was wrong, not Node's bare status line.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const why = status === 431 ? 'request headers over the server limit' : 'malformed HTTP request';
  const body = JSON.stringify(errorBody(status, `scripted LLM refused the request: ${why}`));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-should-retry: false\r\nconnection: close\r\n\r\n${body}`
  );
}

async function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server.address() as AddressInfo;
}

/**
 * A loopback server speaking the Anthropic Messages API (POST /v1/messages), so the real SDK can
 * run against scripted completions in tests and in the zero-setup demo. An unscripted call fails
 * loudly with a non-retryable 400 naming the call kind and a prompt excerpt.
 */
export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlm> {
  const script = new Script();
  script.push(options.script ?? []);
  const log = new RequestLog(options.keptRequests);
  const { requests } = log;
  const faults = new FaultSchedule();
  faults.set(options.faults ?? []);
  const handle = createHandler(script, log, faults, options.fallback);
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(500, `scripted LLM failed: ${String(err)}`));
    });
  });
  server.on('clientError', answerClientError);
  const address = await listen(server, options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    baseUrl: `http://${address.address}:${address.port}`,
    push: (entries) => script.push(entries),
    setScript: (entries) => script.reset(entries),
    requests,
    requestsOf: (kind) => requests.filter((r) => r.kind === kind),
    unconsumed: () => script.unconsumed(),
    clearRequests: () => log.clear(),
    setFaults: (rules) => faults.set(rules),
    injectedFaults: () => faults.injected(),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
