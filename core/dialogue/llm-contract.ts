import { isJsonObject, type Json, type JsonObject } from '../json';
import { DIALOGUE_ACTS } from '../config/vocabulary';
import { parseDialogueAct, type DialogueActGuess } from './acts';

/** JSON schema of the dialogue-act answer; rewrite mode also requires the standalone query. */
export function dialogueActSchema(rewrite: boolean): JsonObject {
  const properties: JsonObject = {
    dialogueAct: { type: 'string', enum: [...DIALOGUE_ACTS] },
    confidence: { type: 'number' },
  };
  if (rewrite) properties['standaloneQuery'] = { type: 'string' };
  return {
    type: 'object',
    required: rewrite ? ['dialogueAct', 'confidence', 'standaloneQuery'] : ['dialogueAct', 'confidence'],
    properties,
  };
}

const clamp01 = (n: number) => Math.max(0, Math.min(1, n));

/**
 * The longest standalone query taken from the model, in characters (a default message's MESSAGE_MAX_BYTES):
 * a rewrite of one message needs no more. It is copied into standalone_query, resolved_user_input and
 * dialogue_act_llm_standalone_query, so into prompts and the session; a longer one is dropped, as if the
 * model had not rewritten the message (the user's own text is used), rather than cut to a question the
 * user never asked. The answer itself stays in DIALOGUE_ACT_LLM_OUTPUT.
 */
export const STANDALONE_QUERY_MAX_CHARS = 8192;

function standaloneQueryOf(value: Json | undefined): string | null {
  if (typeof value !== 'string' || value.trim() === '' || value.length > STANDALONE_QUERY_MAX_CHARS) return null;
  return value;
}

/** Reads a validated dialogue-act answer; null when it does not name a known act. */
export function readDialogueActAnswer(json: Json): DialogueActGuess | null {
  if (!isJsonObject(json)) return null;
  const act = parseDialogueAct(json['dialogueAct']);
  if (!act) return null;
  const confidence = typeof json['confidence'] === 'number' ? clamp01(json['confidence']) : 0;
  return { act, confidence, standaloneQuery: standaloneQueryOf(json['standaloneQuery']) };
}
