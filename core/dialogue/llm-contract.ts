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

/** Reads a validated dialogue-act answer; null when it does not name a known act. */
export function readDialogueActAnswer(json: Json): DialogueActGuess | null {
  if (!isJsonObject(json)) return null;
  const act = parseDialogueAct(json['dialogueAct']);
  if (!act) return null;
  const confidence = typeof json['confidence'] === 'number' ? clamp01(json['confidence']) : 0;
  const standalone = json['standaloneQuery'];
  return {
    act,
    confidence,
    standaloneQuery: typeof standalone === 'string' && standalone.trim() !== '' ? standalone : null,
  };
}
