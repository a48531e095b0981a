import { LLM_REPLY_DEFAULT_MAX_BYTES } from '../../config/env';
import { EngineError, ErrorType } from '../../core/errors';
import type { LlmRequest } from '../../core/llm';
import { storableText } from '../../core/text/storable-output';
import { cutText } from '../../core/text/cut-text';

/** How much of a refused reply is kept for the call log and the audit, so the refusal can be read. */
const REFUSED_REPLY_HEAD_CHARS = 1024;

/** JSON writes a character in at most six bytes per UTF-8 byte of it (a control character as \u0000). */
const JSON_ESCAPE_FACTOR = 6;
/** The Messages envelope around a reply's text: ids, model, usage, block types. */
const REPLY_ENVELOPE_BYTES = 64 * 1024;
/** How the bound of a response body is reckoned, as failure texts and docs name it. */
export const REPLY_BODY_BOUND = `LLM_REPLY_MAX_BYTES × ${JSON_ESCAPE_FACTOR} + ${REPLY_ENVELOPE_BYTES / 1024} KiB`;

/**
 * Most bytes of a Messages response body read (bounded-fetch.ts): room for a reply of `maxReplyBytes` however the
 * server escapes its text, so a reply within LLM_REPLY_MAX_BYTES is never cut by the body's bound, while an endless
 * or huge body stops being read long before it fills the worker's memory (1.6 MB by default).
 */
export function replyBodyMaxBytes(maxReplyBytes = LLM_REPLY_DEFAULT_MAX_BYTES): number {
  return maxReplyBytes * JSON_ESCAPE_FACTOR + REPLY_ENVELOPE_BYTES;
}

/** A model's reply as the engine takes it in: storable text, or why it is refused (and its head). */
export interface ScreenedReply {
  text: string;
  /** Why the reply is bad output, never used: too large, empty, not finished or refused (anthropic-client.ts). */
  refused: string | null;
}

/**
 * Bounds and cleans a model's reply text where it arrives. A reply is copied into the conversation, its
 * history, the call log and audit rows; a hostile or runaway one of megabytes wrote hundreds of megabytes
 * per turn (the way MAX_RESPONSE_BYTES bounds an HTTP tool's body). Within the limit, NUL and lone
 * surrogates are replaced (core/text/storable-output.ts).
 */
export function screenModelReply(text: string, maxBytes = LLM_REPLY_DEFAULT_MAX_BYTES): ScreenedReply {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return { text: storableText(text), refused: null };
  const tooLarge = `reply is ${bytes} bytes, over the ${maxBytes}-byte limit (LLM_REPLY_MAX_BYTES)`;
  const head = storableText(cutText(text, REFUSED_REPLY_HEAD_CHARS));
  return { text: `${head}… [${tooLarge}; cut]`, refused: tooLarge };
}

/**
 * A text call's answer, or LLM_OUTPUT_INVALID (not retried: the same prompt tends to get the same kind
 * of answer, and a cut-off one is cut off again under the same max_tokens) when it is refused. A JSON call reports a refused reply as `ok: false` instead.
 */
export function replyTextOf(req: LlmRequest, reply: ScreenedReply): string {
  if (reply.refused === null) return reply.text;
  throw new EngineError(ErrorType.LlmOutputInvalid, `LLM call ${req.kind} answered badly: ${reply.refused}`, {
    details: { kind: req.kind, error: reply.refused },
  });
}
