import { isJsonObject, type Json } from '../../json';
import { isEngineContextPath } from '../../context/engine-paths';
import {
  authoredVariableParts,
  canonicalTemplateVariable,
  isKnownTemplateRoot,
  placeholderIn,
  type TemplateVariablePart,
  type VariablePath,
} from '../../templates';
import { ANY_SCOPE, normalizeScopeValue } from '../scope';
import { settingRow, type SettingDefinition } from '../setting';
import { INTERACTION_CAPABILITIES, INTERACTION_MODES, PROMPT_OUTPUT_FORMATS, oneOf } from '../vocabulary';
import type { PromptTemplateRow } from '../types';
import { inputParamKeysWrittenBy } from './action-values';
import { isBlank, type ValidationContext } from './context';

/**
 * Names a template may use beyond the static catalog: property names of output schemas (extracted
 * fields live at the top of the context and are flattened into the variables) and input params
 * written by rules (SET_INPUT_PARAM, SET_JSON, GET_*).
 */
export interface TemplateVocabulary {
  ruleWrittenKeys: ReadonlySet<string>;
  schemaFieldsByIntent: ReadonlyMap<string, ReadonlySet<string>>;
}

export function buildTemplateVocabulary(ctx: ValidationContext): TemplateVocabulary {
  const ruleWrittenKeys = new Set(ctx.rows.rules.filter((r) => r.enabled).flatMap(inputParamKeysWrittenBy));
  const schemaFieldsByIntent = new Map<string, Set<string>>();
  for (const schema of ctx.rows.outputSchemas) {
    if (!schema.enabled || !isJsonObject(schema.jsonSchema) || !isJsonObject(schema.jsonSchema.properties)) continue;
    const intent = normalizeScopeValue(schema.intentCode);
    const fields = schemaFieldsByIntent.get(intent) ?? new Set<string>();
    for (const name of Object.keys(schema.jsonSchema.properties)) fields.add(name);
    schemaFieldsByIntent.set(intent, fields);
  }
  return { ruleWrittenKeys, schemaFieldsByIntent };
}

function isKnownRoot(vocab: TemplateVocabulary, root: string, intentCode: string | null): boolean {
  return isKnownTemplateRoot(root) || vocab.ruleWrittenKeys.has(root) || schemaFieldsFor(vocab, intentCode).has(root);
}

/**
 * Where a template is rendered: `strict` renders (prompts, derivation hints, SHORT_CIRCUIT text) fail the turn
 * with UNRESOLVED_PROMPT_VARIABLE on an absent value; `lenient` ones (EXACT replies, reserved replies, progress
 * messages) render it empty.
 */
export type TemplateRender = 'strict' | 'lenient';

/** Who reads a column once rendered: the model (prompts, derivation hints) or the user (replies, progress messages). */
export type TemplateReader = 'model' | 'user';

/** A column, as the size check names it and says why its limit holds. */
export interface SizedColumn {
  table: string;
  id: string | number;
  column: string;
  reader: TemplateReader;
}

export interface TemplateColumn extends SizedColumn {
  id: number;
  intentCode: string | null;
  render: TemplateRender;
}

/** Checks one template-bearing column: it must parse and reference only known variables. */
export function checkTemplateText(
  ctx: ValidationContext,
  vocab: TemplateVocabulary,
  where: TemplateColumn,
  text: string | null
): void {
  if (isBlank(text)) return;
  if (!checkTemplateSize(ctx, where, text as string)) return;
  let parts: TemplateVariablePart[];
  try {
    parts = authoredVariableParts(text as string);
  } catch (err) {
    ctx.sink.violation(where.table, where.id, `${where.column}: ${(err as Error).message}`);
    return;
  }
  // Without the rules or the output schemas (a partial tree) a name they might write cannot be judged.
  if (!ctx.has('rules') || !ctx.has('outputSchemas')) return;
  for (const part of parts) {
    const field = extractedFieldRead(part.path);
    const writers = field === null ? [] : intentsExtracting(vocab, field);
    if (!isKnownRoot(vocab, part.path.root, where.intentCode)) {
      // Context outlives the intent that filled it, so another intent's field is there after that intent ran.
      if (writers.length === 0) {
        ctx.sink.violation(where.table, where.id, `${where.column} references unknown variable ${part.raw}`);
      } else if (part.fallback === undefined) {
        ctx.sink.warning(where.table, where.id, otherIntentsField(where, part, writers));
      }
    } else if (part.fallback === undefined && !contextPathIsWritten(vocab, part.path, where.intentCode)) {
      const message =
        writers.length === 0 ? unwrittenContextPath(where, part) : otherIntentsField(where, part, writers);
      ctx.sink.warning(where.table, where.id, message);
    }
  }
}

/** `read`, then what an absent value does where this column is rendered, and the default that renders it empty. */
function absentValueWarning(where: TemplateColumn, part: TemplateVariablePart, read: string, present: string): string {
  if (where.render === 'lenient') return `${read} (it renders empty unless ${present})`;
  const withDefault = placeholderIn(part.syntax, `${part.path.text} ?: ''`);
  return (
    `${read}: a turn that renders it fails with UNRESOLVED_PROMPT_VARIABLE unless ${present} ` +
    `(give it a default, ${withDefault}, to render it empty)`
  );
}

/** The schema field a placeholder reads: `{{field}}` (flattened) or `{{context.field…}}`; null for anything else. */
function extractedFieldRead(ref: VariablePath): string | null {
  if (canonicalTemplateVariable(ref.root) !== 'context') return ref.root;
  return ref.segments.length === 0 ? null : String(ref.segments[0]);
}

/** Intents whose output schema extracts `field`, which stays in the conversation's context after they ran. */
function intentsExtracting(vocab: TemplateVocabulary, field: string): string[] {
  return [...vocab.schemaFieldsByIntent].filter(([, names]) => names.has(field)).map(([intent]) => intent);
}

function otherIntentsField(where: TemplateColumn, part: TemplateVariablePart, writers: readonly string[]): string {
  const intents = writers.join(', ');
  const read = `${where.column} reads ${part.raw}, which only the output schema of intent ${intents} extracts`;
  return absentValueWarning(where, part, read, `the conversation went through ${intents} first`);
}

/** What an absent `context.` path does where this column is rendered, and how to make it render empty. */
function unwrittenContextPath(where: TemplateColumn, part: TemplateVariablePart): string {
  const read = `${where.column} reads ${part.raw}, which no step writes`;
  const present =
    where.render === 'lenient' ? 'a task or tool result puts it there' : 'a task or tool result has put it there first';
  return absentValueWarning(where, part, read, present);
}

/**
 * Every render of a template goes into an LLM request or to the user, and so does the free text that prompts show
 * (text-checks.ts). Past the warning size it costs on every turn. Past the limit a prompt cannot fit any model's
 * context window (~200k tokens, ~4 bytes each), so every turn that renders it would fail at the model; text for
 * the user that size is a paste gone wrong, which every turn would also store in the history and the audit trail.
 */
const TEMPLATE_WARN_BYTES = 32 * 1024;
const TEMPLATE_MAX_BYTES = 1024 * 1024;
const OVER_LIMIT: Readonly<Record<TemplateReader, string>> = {
  model: 'over the 1024 KiB a model request can hold',
  user: 'over the 1024 KiB limit of text sent to the user',
};

export function checkTemplateSize(ctx: ValidationContext, where: SizedColumn, text: string): boolean {
  const bytes = new TextEncoder().encode(text).byteLength;
  const size = `${Math.round(bytes / 1024)} KiB`;
  if (bytes > TEMPLATE_MAX_BYTES) {
    ctx.sink.violation(where.table, where.id, `${where.column} is ${size}, ${OVER_LIMIT[where.reader]}`);
    return false;
  }
  if (bytes > TEMPLATE_WARN_BYTES) {
    ctx.sink.warning(where.table, where.id, `${where.column} is ${size}; every turn that renders it sends it whole`);
  }
  return true;
}

/** `context.<path>` is written by the engine, or is a schema field extracted for this intent. */
function contextPathIsWritten(vocab: TemplateVocabulary, ref: VariablePath, intentCode: string | null): boolean {
  if (canonicalTemplateVariable(ref.root) !== 'context' || ref.segments.length === 0) return true;
  const path = ref.segments.map(String).join('.');
  if (isEngineContextPath(path)) return true;
  const first = String(ref.segments[0]);
  return schemaFieldsFor(vocab, intentCode).has(first) || vocab.ruleWrittenKeys.has(first);
}

function schemaFieldsFor(vocab: TemplateVocabulary, intentCode: string | null): Set<string> {
  const intent = normalizeScopeValue(intentCode);
  const fields = new Set<string>();
  for (const [schemaIntent, names] of vocab.schemaFieldsByIntent) {
    if (intent === ANY_SCOPE || schemaIntent === ANY_SCOPE || schemaIntent === intent)
      names.forEach((n) => fields.add(n));
  }
  return fields;
}

/** A row's system_prompt and user_prompt: rendered strictly, for the model. */
function checkPromptPair(
  ctx: ValidationContext,
  vocab: TemplateVocabulary,
  row: Pick<TemplateColumn, 'table' | 'id' | 'intentCode'>,
  systemPrompt: string | null,
  userPrompt: string | null
): void {
  const prompt = { ...row, reader: 'model', render: 'strict' } as const;
  checkTemplateText(ctx, vocab, { ...prompt, column: 'system_prompt' }, systemPrompt);
  checkTemplateText(ctx, vocab, { ...prompt, column: 'user_prompt' }, userPrompt);
}

export function checkPromptTemplates(ctx: ValidationContext, vocab: TemplateVocabulary): void {
  for (const t of ctx.rows.promptTemplates) {
    if (!t.enabled) continue;
    const where = { table: 'ce_prompt_template', id: t.templateId, intentCode: t.intentCode };
    if (!oneOf(PROMPT_OUTPUT_FORMATS, t.outputFormat)) {
      ctx.sink.violation(
        where.table,
        where.id,
        `output_format "${t.outputFormat}" is not one of ${PROMPT_OUTPUT_FORMATS.join(', ')}`
      );
    }
    checkPromptPair(ctx, vocab, where, t.systemPrompt, t.userPrompt);
    if (t.temperature !== null && !(t.temperature >= 0 && t.temperature <= 1)) {
      ctx.sink.violation(where.table, where.id, `temperature ${t.temperature} must be between 0 and 1`);
    }
    if (!isBlank(t.interactionMode) && !oneOf(INTERACTION_MODES, t.interactionMode)) {
      ctx.sink.warning(
        where.table,
        where.id,
        `interaction_mode "${t.interactionMode}" is not one of ${INTERACTION_MODES.join(', ')}; it behaves as NORMAL`
      );
    }
    checkInteractionContract(ctx, t);
  }
}

function checkInteractionContract(ctx: ValidationContext, t: PromptTemplateRow): void {
  const contract: Json | null = t.interactionContract;
  if (contract === null) return;
  const fail = (why: string) => ctx.sink.violation('ce_prompt_template', t.templateId, `interaction_contract ${why}`);
  if (!isJsonObject(contract)) return fail('must be a JSON object {"allows": [...], "expects": [...]}');
  for (const field of ['allows', 'expects'] as const) {
    const list = contract[field];
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string'))
      return fail(`"${field}" must be an array of strings`);
  }
  const allows = (contract.allows ?? []) as string[];
  const unknown = allows.filter((c) => !(INTERACTION_CAPABILITIES as readonly string[]).includes(c.toLowerCase()));
  if (unknown.length > 0) {
    ctx.sink.warning(
      'ce_prompt_template',
      t.templateId,
      `interaction_contract allows unknown capabilities ${unknown.join(', ')} (known: ${INTERACTION_CAPABILITIES.join(', ')})`
    );
  }
}

export function checkPlanners(ctx: ValidationContext, vocab: TemplateVocabulary): void {
  for (const p of ctx.rows.mcpPlanners) {
    if (!p.enabled) continue;
    const where = { table: 'ce_mcp_planner', id: p.plannerId, intentCode: p.intentCode };
    if (isBlank(p.systemPrompt)) ctx.sink.violation(where.table, where.id, 'system_prompt is blank');
    if (isBlank(p.userPrompt)) ctx.sink.violation(where.table, where.id, 'user_prompt is blank');
    checkPromptPair(ctx, vocab, where, p.systemPrompt, p.userPrompt);
  }
}

/**
 * ce_config rows that set a prompt (SYSTEM_PROMPT, USER_PROMPT…): the same variable check as ce_prompt_template's,
 * as every turn renders them, in any intent. A prompt left at its default is the engine's own and not checked here.
 */
export function checkSettingTemplates(
  ctx: ValidationContext,
  vocab: TemplateVocabulary,
  settings: readonly SettingDefinition[]
): void {
  for (const def of settings) {
    if (!def.template) continue;
    const row = settingRow(ctx.rows.configs, def);
    if (!row || row.configValue === null) continue;
    const column = `${def.configType}.${def.configKey}`;
    const stepVocab = {
      ...vocab,
      ruleWrittenKeys: new Set([...vocab.ruleWrittenKeys, ...(def.templateVariables ?? [])]),
    };
    checkTemplateText(
      ctx,
      stepVocab,
      { table: 'ce_config', id: row.configId, column, intentCode: null, reader: 'model', render: 'strict' },
      row.configValue
    );
  }
}
