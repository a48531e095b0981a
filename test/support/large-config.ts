import type { ConfigRows, RuleRow } from '../../core/config/types';
import { classifierRow, intentRow, responseRow, ruleRow, schemaRow, snapshotOf, templateRow } from './config-rows';

const PHASES = ['POST_DIALOGUE_ACT', 'POST_SCHEMA_EXTRACTION', 'PRE_RESPONSE_RESOLUTION', 'POST_AGENT_INTENT'];

/** An intent's own rules: four that set an input param on a word never said, one that moves COLLECT → DONE. */
function intentRules(code: string, i: number): RuleRow[] {
  const scoped = { intentCode: code, stateCode: 'COLLECT', ruleType: 'REGEX' };
  return [
    ...PHASES.map((phase, k) =>
      ruleRow({
        ...scoped,
        ruleId: 100_000 + i * 10 + k,
        phase,
        matchPattern: `(?i)\\bnevermatch${i}_${k}\\b`,
        action: 'SET_INPUT_PARAM',
        actionValue: `k${k}:v`,
      })
    ),
    ruleRow({
      ...scoped,
      ruleId: 100_000 + i * 10 + 9,
      matchPattern: '(?i)\\bfinish\\b',
      action: 'SET_STATE',
      actionValue: 'DONE',
      priority: 200,
    }),
  ];
}

/**
 * A large deployment's config, shaped as one swept in production tests (300 intents, 2,000 rules): per intent a
 * classifier, a 40-field extraction schema, a response in COLLECT and in DONE and five rules; plus two ANY-scoped
 * rules per intent that every turn evaluates, and one ANY-scoped extraction prompt the schemas share. Valid;
 * everything grows linearly with `intents`.
 */
export function largeConfigRows(intents: number): ConfigRows {
  const codes = Array.from({ length: intents }, (_, i) => `BIG${String(i + 1).padStart(4, '0')}`);
  const fields = (i: number) =>
    Object.fromEntries(
      Array.from({ length: 40 }, (_, k) => [`field${k}`, { type: 'string', description: `${k}/${i}` }])
    );
  const anyRules = Array.from({ length: intents * 2 }, (_, k) =>
    ruleRow({
      ruleId: 500_000 + k,
      phase: k % 2 ? 'PRE_RESPONSE_RESOLUTION' : 'POST_DIALOGUE_ACT',
      matchPattern: `(?i)\\bzzznever${k}\\b`,
      action: 'SET_INPUT_PARAM',
      actionValue: 'z:v',
      priority: 10,
    })
  );
  return snapshotOf({
    intents: codes.map((code) => intentRow(code)),
    classifiers: codes.map((code, i) =>
      classifierRow({ intentCode: code, stateCode: 'COLLECT', ruleType: 'CONTAINS', pattern: `bigtopic${i}` })
    ),
    outputSchemas: codes.map((code, i) =>
      schemaRow({
        intentCode: code,
        stateCode: 'COLLECT',
        jsonSchema: { type: 'object', required: ['field0'], properties: fields(i) },
      })
    ),
    promptTemplates: [templateRow({ intentCode: 'ANY', stateCode: 'ANY', outputFormat: 'SCHEMA_JSON' })],
    responses: codes.flatMap((code) => [
      responseRow({ intentCode: code, stateCode: 'COLLECT', exactText: `Collecting for ${code}.` }),
      responseRow({ intentCode: code, stateCode: 'DONE', exactText: `Done with ${code}.` }),
    ]),
    rules: [...codes.flatMap((code, i) => intentRules(code, i)), ...anyRules],
  }).rows;
}
