import { JSON_REPLY_SHAPE, jsonReplyValue } from '../../response/payload';
import {
  isReservedResponseState,
  RESERVED_RESPONSE_VARIABLES,
  type ReservedResponseStateName,
} from '../../response/reserved';
import { checkTemplate, jsonTemplateSkeleton } from '../../templates';
import { normalizeScopeValue, scopeValuesOverlap } from '../scope';
import type { ResponseRow } from '../types';
import { oneOf, RESPONSE_OUTPUT_FORMATS, RESPONSE_TYPES } from '../vocabulary';
import { isBlank, type ValidationContext } from './context';
import { checkTemplateText, type TemplateVocabulary } from './prompt-checks';

/** ce_response rows: their vocabulary, their templates, a DERIVED row's prompt, an EXACT JSON row's text. */
export function checkResponses(ctx: ValidationContext, vocab: TemplateVocabulary): void {
  for (const r of ctx.rows.responses) {
    if (!r.enabled) continue;
    const where = { table: 'ce_response', id: r.responseId, intentCode: r.intentCode };
    const type = oneOf(RESPONSE_TYPES, r.responseType);
    const format = oneOf(RESPONSE_OUTPUT_FORMATS, r.outputFormat);
    if (!type)
      ctx.sink.violation(
        where.table,
        where.id,
        `response_type "${r.responseType}" is not one of ${RESPONSE_TYPES.join(', ')}`
      );
    if (!format) {
      ctx.sink.violation(
        where.table,
        where.id,
        `output_format "${r.outputFormat}" is not one of ${RESPONSE_OUTPUT_FORMATS.join(', ')}`
      );
    }
    if (type === 'EXACT' && isBlank(r.exactText))
      ctx.sink.violation(where.table, where.id, 'EXACT response needs exact_text');
    if (type === 'DERIVED' && format && ctx.has('promptTemplates') && !hasDerivationTemplate(ctx, r, format)) {
      ctx.sink.violation(
        where.table,
        where.id,
        `DERIVED response has no enabled ce_prompt_template with output_format=${format} for intent ${r.intentCode} / state ${r.stateCode}`
      );
    }
    if (isReservedResponseState(r.stateCode)) {
      checkReservedResponse(ctx, vocab, r, type, format);
      continue;
    }
    checkTemplateText(ctx, vocab, { ...where, column: 'exact_text', reader: 'user', render: 'lenient' }, r.exactText);
    if (type === 'EXACT' && format === 'JSON') checkJsonReply(ctx, r);
    checkTemplateText(
      ctx,
      vocab,
      { ...where, column: 'derivation_hint', reader: 'model', render: 'strict' },
      r.derivationHint
    );
  }
}

/** AWAITING_APPROVAL / TURN_FAILED rows are said by the API outside a turn: EXACT TEXT only, with their own variables. */
function checkReservedResponse(
  ctx: ValidationContext,
  vocab: TemplateVocabulary,
  r: ResponseRow,
  type: string | null,
  format: string | null
): void {
  const state = normalizeScopeValue(r.stateCode) as ReservedResponseStateName;
  if ((type && type !== 'EXACT') || (format && format !== 'TEXT')) {
    ctx.sink.violation('ce_response', r.responseId, `a ${state} response must be EXACT with output_format TEXT`);
  }
  const own: TemplateVocabulary = {
    ...vocab,
    ruleWrittenKeys: new Set([...vocab.ruleWrittenKeys, ...RESERVED_RESPONSE_VARIABLES[state]]),
  };
  const where = { table: 'ce_response', id: r.responseId, intentCode: r.intentCode, column: 'exact_text' };
  checkTemplateText(ctx, own, { ...where, reader: 'user', render: 'lenient' }, r.exactText);
}

function hasDerivationTemplate(ctx: ValidationContext, r: ResponseRow, format: string): boolean {
  return ctx.rows.promptTemplates.some(
    (t) =>
      t.enabled &&
      normalizeScopeValue(t.outputFormat) === format &&
      scopeValuesOverlap(t.intentCode, r.intentCode) &&
      scopeValuesOverlap(t.stateCode, r.stateCode)
  );
}

/**
 * An EXACT JSON reply renders each placeholder as JSON (core/templates/json-render.ts): as a JSON value where it
 * stands bare, as escaped content inside a string. So it is JSON_REPLY_SHAPE whatever the values are exactly when
 * its skeleton (every placeholder taken as null or empty) is; otherwise every turn that reaches it would fail with
 * RESPONSE_NOT_JSON. A malformed template is a violation of its own.
 */
function checkJsonReply(ctx: ValidationContext, r: ResponseRow): void {
  const text = r.exactText ?? '';
  if (isBlank(text) || checkTemplate(text) !== null) return;
  if (jsonReplyValue(jsonTemplateSkeleton(text)) !== undefined) return;
  ctx.sink.violation(
    'ce_response',
    r.responseId,
    `exact_text is not ${JSON_REPLY_SHAPE} once each placeholder is taken as one JSON value, which output_format JSON ` +
      'sends as the reply: write it as JSON, e.g. {"orderId": "{{context.order_id}}", "items": {{context.items}}}, ' +
      'or set output_format TEXT'
  );
}
