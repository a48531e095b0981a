import { LLM_REPLY_DEFAULT_MAX_BYTES } from '../../config/env';
import { EngineError, ErrorType } from '../../core/errors';
import type { LlmRequest } from '../../core/llm';
import { storableText } from '../../core/text/storable-output';
import { cutText } from '../../core/text/cut-text';

/** How much of a refused reply is kept for the call log and the audit, so the refusal can be read. */
const REFUSED_REPLY_HEAD_CHARS = 1024;

/** A model's reply as the engine takes it in: storable text, or why it is refused (and its head). */
export interface ScreenedReply {
  text: string;
  /** Why the reply is bad output, never used: over the size limit, empty, or cut off (anthropic-client.ts). */
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
