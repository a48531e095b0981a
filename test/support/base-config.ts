import type { ConfigRows } from '../../core/config/types';
import { classifierRow, configRow, intentRow, responseRow, ruleRow } from './config-rows';

export const GREETING_REPLY = 'Hi, how can I help you today?';
export const UNKNOWN_REPLY = 'Sorry, I did not understand that. Can you rephrase?';

/** The BASE config of reference §14 (REGEX_ONLY dialogue acts), plus `extra` rows per table. */
export function baseConfig(
  extra: Partial<ConfigRows> = {},
  options: { dialogueActMode?: string } = {}
): Partial<ConfigRows> {
  const base: Partial<ConfigRows> = {
    intents: [intentRow('GREETING', 15), intentRow('FAQ', 10), intentRow('UNKNOWN', 999)],
    classifiers: [
      classifierRow({
        classifierId: 1,
        intentCode: 'GREETING',
        stateCode: 'IDLE',
        ruleType: 'REGEX',
        pattern: '^(hi|hello)\\b',
      }),
    ],
    responses: [
      responseRow({ responseId: 1, intentCode: 'GREETING', stateCode: 'IDLE', exactText: GREETING_REPLY }),
      responseRow({ responseId: 2, intentCode: 'UNKNOWN', stateCode: 'ANY', exactText: UNKNOWN_REPLY }),
    ],
    rules: [
      ruleRow({
        ruleId: 1,
        intentCode: 'GREETING',
        stateCode: 'ANY',
        matchPattern: '(?i)\\breset\\b',
        action: 'SET_STATE',
        actionValue: 'IDLE',
      }),
    ],
    configs:
      options.dialogueActMode === 'REGEX_THEN_LLM'
        ? []
        : [configRow('DialogueActStep', 'RESOLUTE_MODE', options.dialogueActMode ?? 'REGEX_ONLY')],
  };
  const out: Partial<ConfigRows> = { ...base };
  for (const [table, rows] of Object.entries(extra) as [keyof ConfigRows, unknown[]][]) {
    (out as Record<string, unknown[]>)[table] = [...((base[table] as unknown[] | undefined) ?? []), ...rows];
  }
  return out;
}
