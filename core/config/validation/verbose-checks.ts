import { checkJsonPath } from '../../rules/jsonpath';
import { checkUserRegex } from '../../text/regex';
import {
  FRAME_STEP_NAMES,
  STEP_EVENTS,
  STEP_MATCH_TYPES,
  VERBOSE_DETERMINANTS,
  determinantsOf,
  isKnownVerboseDeterminant,
  isKnownVerboseStep,
  verboseMetadataKeys,
} from '../../verbose';
import type { VerboseRow } from '../types';
import { isBlank, type ValidationContext } from './context';
import { checkTemplateText, type TemplateColumn, type TemplateVocabulary } from './prompt-checks';

const TABLE = 'ce_verbose';
const isAny = (value: string) => value.trim().toUpperCase() === 'ANY';

/**
 * ce_verbose rows (§11.2 plus issue #21): step_match is EXACT, REGEX or JSON_PATH; step_value and
 * determinant are set; a REGEX must compile and a JSON_PATH parse; an EXACT step and a determinant
 * must be ones this engine publishes (or ANY), and an EXACT step must publish that determinant —
 * a row that can never show is a mistake, not a preference. Messages are templates checked as prompts are,
 * with the event's metadata (verboseMetadataKeys) among their variables: an unknown one would show as blank.
 * Scope (intent, state) is checked with the other scoped tables.
 */
export function checkVerboses(ctx: ValidationContext, vocab: TemplateVocabulary): void {
  for (const row of ctx.rows.verboses) {
    if (!row.enabled) continue;
    const fail = (reason: string) => ctx.sink.violation(TABLE, row.verboseId, reason);
    checkStep(row, fail);
    checkDeterminant(row, fail);
    if (isBlank(row.message) && isBlank(row.errorMessage)) fail('message and error_message are both blank');
    const metadata = verboseMetadataKeys(isBlank(row.determinant) ? 'ANY' : row.determinant);
    const own = { ...vocab, ruleWrittenKeys: new Set([...vocab.ruleWrittenKeys, ...metadata]) };
    for (const [column, text] of [
      ['message', row.message],
      ['error_message', row.errorMessage],
    ] as const) {
      const where: TemplateColumn = {
        table: TABLE,
        id: row.verboseId,
        column,
        intentCode: row.intentCode,
        reader: 'user',
        render: 'lenient',
      };
      checkTemplateText(ctx, own, where, text);
    }
  }
}

function checkStep(row: VerboseRow, fail: (reason: string) => void): void {
  const match = (row.stepMatch ?? '').trim().toUpperCase();
  if (!(STEP_MATCH_TYPES as readonly string[]).includes(match)) {
    fail(`unknown step_match "${row.stepMatch}" (known: ${STEP_MATCH_TYPES.join(', ')})`);
    return;
  }
  if (isBlank(row.stepValue)) {
    fail('step_value is null/blank');
    return;
  }
  const value = row.stepValue.trim();
  if (match === 'REGEX') {
    const reason = checkUserRegex(value, { ignoreCase: true });
    if (reason !== null) fail(`step_value: ${reason}`);
  } else if (match === 'JSON_PATH') {
    const reason = checkJsonPath(value);
    if (reason !== null) fail(`step_value: invalid JSONPath "${value}": ${reason}`);
  } else if (!isAny(value) && !isKnownVerboseStep(value)) {
    const known = [...Object.keys(STEP_EVENTS), ...FRAME_STEP_NAMES].join(', ');
    fail(`unknown step "${value}": no step publishes progress under that name (known: ${known}, or ANY)`);
  }
}

function checkDeterminant(row: VerboseRow, fail: (reason: string) => void): void {
  if (isBlank(row.determinant)) {
    fail('determinant is null/blank');
    return;
  }
  const determinant = row.determinant.trim().toUpperCase();
  if (isAny(determinant)) return;
  if (!isKnownVerboseDeterminant(determinant)) {
    fail(`unknown determinant "${row.determinant}" (known: ${VERBOSE_DETERMINANTS.join(', ')}, or ANY)`);
    return;
  }
  const match = (row.stepMatch ?? '').trim().toUpperCase();
  if (match !== 'EXACT' || isBlank(row.stepValue) || isAny(row.stepValue) || !isKnownVerboseStep(row.stepValue)) return;
  const published = determinantsOf(row.stepValue);
  if (!published.includes(determinant)) {
    fail(`step "${row.stepValue.trim()}" never publishes ${determinant} (it publishes ${published.join(', ')})`);
  }
}
