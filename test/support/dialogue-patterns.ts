import { DialogueActSettings as S } from '../../core/config/settings/dialogue-act';
import type { DialogueActPatterns } from '../../core/dialogue/regex-classifier';

/** The dialogue-act patterns a config that sets none runs with (the settings' defaults). */
export const DEFAULT_DIALOGUE_ACT_PATTERNS: DialogueActPatterns = {
  affirm: S.regexAffirm.default,
  negate: S.regexNegate.default,
  edit: S.regexEdit.default,
  reset: S.regexReset.default,
  greeting: S.regexGreeting.default,
};
