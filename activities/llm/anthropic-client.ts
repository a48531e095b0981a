import Anthropic from '@anthropic-ai/sdk';
import {
  LLM_CALL_KIND_HEADER,
  LLM_DEMO_META_FIELD,
  type LlmClient,
  type LlmDemoMeta,
  type LlmJsonResult,
  type LlmRequest,
} from '../../core/llm';
import { LLM_SDK_RETRY_WAIT_MAX_MS } from '../../core/turn/steps';
import { activityCancellation, cancelledBy } from '../runtime/activity-context';
import { boundedFetch, LlmBodyTooLargeError } from './bounded-fetch';
import { llmCallFailure, type LlmEndpoint } from './call-failure';
import { jsonResult, parseJsonOutput, type JsonOutputProblem } from './json-output';
import { REPLY_BODY_BOUND, replyBodyMaxBytes, replyTextOf, screenModelReply, type ScreenedReply } from './model-reply';

export const CALL_KIND_HEADER = LLM_CALL_KIND_HEADER;

export interface AnthropicLlmOptions {
  apiKey: string;
  /** Unset: the public API. Tests point this at the scripted server. */
  baseURL?: string;
  model: string;
  /** One try of a call, headers and body. */
  timeoutMs: number;
  maxTokens: number;
  /** Retries done by the SDK itself (429/5xx/timeouts) before the activity sees a failure. */
  maxRetries: number;
  /** The SDK's longest wait before a retry, whatever Retry-After asks (default LLM_SDK_RETRY_WAIT_MAX_MS). */
  retryWaitMaxMs?: number;
  /** Send the turn's intent, state and message in the body (LLM_DEMO_META_FIELD: only for the keyless demo model). */
  demoMeta?: boolean;
  /** Send the expected JSON schema as `output_config.format` (structured outputs). */
  structuredOutput: boolean;
  /** Longest reply taken, in UTF-8 bytes; a longer one is bad output (default: config/env.ts). */
  maxReplyBytes?: number;
  /** Receives one entry per call (success or failure); failures to log never fail the call. */
  onCall?: (entry: LlmCallRecord) => Promise<void>;
  now?: () => number;
  /**
   * The signal that ends a call in flight (default: the running activity's cancellation, activityCancellation): a
   * stopping worker cancels its activities after WORKER_SHUTDOWN_GRACE_MS, and the call must end then.
   */
  cancellation?: () => AbortSignal | undefined;
}

export interface LlmCallRecord {
  request: LlmRequest;
  model: string;
  responseText: string | null;
  success: boolean;
  errorMessage: string | null;
  /** errorMessage without what the model wrote (a schema mismatch's paths): `invalid output: schema mismatch`. */
  errorKind: string | null;
  latencyMs: number;
  /** Tokens the API reported (null when the call failed). */
  usage: { inputTokens: number; outputTokens: number } | null;
}

const JSON_INSTRUCTION =
  'Answer with exactly one JSON value and nothing else: no prose, no code fences, no explanations.';

function jsonSystemPrompt(req: LlmRequest): string {
  const schema = req.schema ? `\nThe JSON must satisfy this JSON Schema:\n${JSON.stringify(req.schema)}` : '';
  return `${req.systemPrompt}\n\n${JSON_INSTRUCTION}${schema}`.trim();
}

function textOf(message: Anthropic.Message): string {
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** A stop_reason as it may be shown: a wire value is any string, and a failure text carries no part of a reply. */
const SHOWN_STOP_REASON = /^[a-z_]{1,40}$/;

/**
 * Why a reply's stop_reason says it is no whole answer, or null when it is one (end_turn, stop_sequence). No call
 * offers tools, so a tool_use or pause_turn stop is no answer either; a refusal is the model's, which the same prompt
 * meets again; anything else (a stop_reason the SDK does not know, none at all) is bad output too.
 */
function stopProblem(stopReason: unknown): string | null {
  if (stopReason === 'end_turn' || stopReason === 'stop_sequence') return null;
  if (stopReason === 'refusal') return 'reply refused by the model (stop_reason refusal)';
  if (stopReason === 'max_tokens' || stopReason === 'model_context_window_exceeded') {
    return `reply cut off (stop_reason ${stopReason})`;
  }
  const shown = typeof stopReason === 'string' && SHOWN_STOP_REASON.test(stopReason) ? stopReason : 'unknown';
  return `reply not finished (stop_reason ${shown})`;
}

/** Why a reply is no answer whatever the call asked for: stopped before its end (stopProblem), or without text. */
function replyProblem(message: Anthropic.Message, text: string): string | null {
  const stopped = stopProblem(message.stop_reason);
  if (stopped !== null) return stopped;
  if (text.trim() !== '') return null;
  const blocks = message.content.map((block) => block.type);
  return blocks.length === 0 ? 'reply has no content' : `reply has no text (content: ${blocks.join(', ')})`;
}

function demoMetaOf(req: LlmRequest): LlmDemoMeta {
  return {
    intent: req.meta.intent,
    state: req.meta.state,
    userInput: req.meta.userText ?? '',
    ...(req.meta.missingFields ? { missingFields: req.meta.missingFields } : {}),
  };
}

function sdkClient(options: AnthropicLlmOptions): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    fetch: boundedFetch({
      timeoutMs: options.timeoutMs,
      maxBodyBytes: replyBodyMaxBytes(options.maxReplyBytes),
      retryWaitMaxMs: options.retryWaitMaxMs ?? LLM_SDK_RETRY_WAIT_MAX_MS,
    }),
  });
}

function endpointOf(options: AnthropicLlmOptions): LlmEndpoint {
  if (options.demoMeta) return 'the keyless demo model';
  return options.baseURL === undefined ? 'the Anthropic API' : 'the Messages API at ANTHROPIC_BASE_URL';
}

type CallRecorder = (entry: LlmCallRecord) => Promise<void>;

function callRecorder(onCall: AnthropicLlmOptions['onCall']): CallRecorder {
  return async (entry) => {
    if (!onCall) return;
    try {
      await onCall(entry);
    } catch {
      // The call log is diagnostics; losing one entry must not fail the turn.
    }
  };
}

function messageParams(
  options: AnthropicLlmOptions,
  req: LlmRequest,
  system: string,
  structured: boolean
): Anthropic.MessageCreateParamsNonStreaming {
  // The SDK sends the body's fields as they are; the demo's is no field of its type.
  const demo = options.demoMeta ? { [LLM_DEMO_META_FIELD]: demoMetaOf(req) } : {};
  return {
    ...demo,
    model: options.model,
    max_tokens: options.maxTokens,
    system,
    messages: [{ role: 'user', content: req.userPrompt.trim() === '' ? '(no input)' : req.userPrompt }],
    ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
    ...(structured && req.schema
      ? { output_config: { format: { type: 'json_schema' as const, schema: req.schema } } }
      : {}),
  };
}

/** What a received message holds: its text, what makes it no answer (null when nothing does), and the tokens spent. */
interface ReceivedMessage {
  text: string;
  unusable: string | null;
  usage: LlmCallRecord['usage'];
}

function receivedMessage(message: Anthropic.Message): ReceivedMessage {
  const text = textOf(message);
  return {
    text,
    unusable: replyProblem(message, text),
    usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
  };
}

/**
 * A body read only up to its bound (bounded-fetch.ts) is a reply too large to take, bad output as one over
 * LLM_REPLY_MAX_BYTES is (not retried: the same prompt tends to get the same answer).
 */
function tooLargeMessage(err: LlmBodyTooLargeError): ReceivedMessage {
  return { text: '', unusable: `${err.message} (${REPLY_BODY_BOUND})`, usage: null };
}

type MessagesCall = (
  req: LlmRequest,
  system: string,
  structured: boolean,
  judge?: (text: string) => JsonOutputProblem | null
) => Promise<ScreenedReply>;

/** A record's failure told by the engine itself (a status, a reply's stop reason): its kind is all of it. */
const engineText = (message: string) => ({ errorMessage: message, errorKind: message });

/**
 * One Messages call, logged once, with what is wrong with the received reply (null when nothing is): no text, not
 * finished, too large, or what `judge` finds (JSON calls).
 */
function messagesCall(client: Anthropic, options: AnthropicLlmOptions): MessagesCall {
  const now = options.now ?? Date.now;
  const cancellation = options.cancellation ?? activityCancellation;
  const record = callRecorder(options.onCall);
  return async (req, system, structured, judge = () => null) => {
    const started = now();
    const log = (outcome: Pick<LlmCallRecord, 'responseText' | 'success' | 'errorMessage' | 'errorKind' | 'usage'>) =>
      record({ request: req, model: options.model, ...outcome, latencyMs: now() - started });
    const headers = { [CALL_KIND_HEADER]: req.kind };
    const signal = cancellation();
    let received: ReceivedMessage;
    try {
      received = receivedMessage(
        await client.messages.create(messageParams(options, req, system, structured), { headers, signal })
      );
    } catch (err) {
      if (signal?.aborted) {
        // Cancelled, not failed: the activity ends as Temporal asked (a stopping worker's attempt is retried elsewhere).
        await log({ responseText: null, success: false, ...engineText(`LLM call ${req.kind} cancelled`), usage: null });
        throw cancelledBy(signal);
      }
      if (!(err instanceof LlmBodyTooLargeError)) {
        const failure = llmCallFailure(req, err, endpointOf(options));
        await log({ responseText: null, success: false, ...engineText(failure.message), usage: null });
        throw failure;
      }
      received = tooLargeMessage(err);
    }
    const screened = screenModelReply(received.text, options.maxReplyBytes);
    const reply = { text: screened.text, refused: screened.refused ?? received.unusable };
    const problem = reply.refused === null ? judge(reply.text) : { error: reply.refused, kind: reply.refused };
    const outcome = problem === null ? { errorMessage: null, errorKind: null } : invalidOutput(problem);
    await log({ responseText: reply.text, success: problem === null, ...outcome, usage: received.usage });
    return reply;
  };
}

function invalidOutput(problem: JsonOutputProblem): Pick<LlmCallRecord, 'errorMessage' | 'errorKind'> {
  return { errorMessage: `invalid output: ${problem.error}`, errorKind: `invalid output: ${problem.kind}` };
}

/** LlmClient on the Anthropic Messages API via the official SDK. */
export function createAnthropicLlmClient(options: AnthropicLlmOptions): LlmClient {
  const call = messagesCall(sdkClient(options), options);
  return {
    generateText: async (req) => replyTextOf(req, await call(req, req.systemPrompt, false)),
    async generateJson(req): Promise<LlmJsonResult> {
      const judge = (text: string) => {
        const parsed = parseJsonOutput(text, req.schema);
        return parsed.ok ? null : parsed;
      };
      const { text: raw, refused } = await call(req, jsonSystemPrompt(req), options.structuredOutput, judge);
      if (refused !== null) return { ok: false, raw, error: refused };
      return jsonResult(raw, req.schema);
    },
  };
}
