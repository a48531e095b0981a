import { findTextProblem } from '../../text/unsafe-text';
import { isOverDeepValue, MAX_CONFIG_JSON_DEPTH } from '../json-depth';
import { CONFIG_PRIMARY_KEYS, CONFIG_TABLE_NAMES } from '../rows';
import type { ConfigRows, ConfigViolation } from '../types';
import type { ValidationContext } from './context';
import { checkTemplateSize } from './prompt-checks';

type Row = Record<string, unknown>;

/** A row field as its column is named: `llmHint` → `llm_hint`. */
const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function rowsOf(ctx: ValidationContext, key: keyof ConfigRows): { table: string; pk: string; rows: Row[] } {
  return { table: CONFIG_TABLE_NAMES[key], pk: CONFIG_PRIMARY_KEYS[key], rows: ctx.rows[key] as unknown as Row[] };
}

/** A row's id as a finding shows it: quoted (escapes and all) when it is itself unsafe to print. */
function shownId(value: unknown): string {
  const id = String(value);
  return findTextProblem(id, 'id') === null ? id : JSON.stringify(id);
}

/** Fields that are not columns: `dbPhase` is the phase as stored, checked as `phase`. */
const NOT_COLUMNS = new Set(['dbPhase']);

/**
 * Every text of every row, enabled or not, in its columns and inside its JSON: no NUL (PostgreSQL cannot store
 * it), no unpaired UTF-16 surrogate and no control character but tab, newline and carriage return — what the API
 * refuses in a request (core/text/unsafe-text.ts). In config such text is a paste gone wrong, and it would reach
 * the model, the user's screen and the audit trail as it is.
 */
export function checkUnsafeText(ctx: ValidationContext): void {
  for (const key of Object.keys(CONFIG_TABLE_NAMES) as (keyof ConfigRows)[]) {
    const { table, pk, rows } = rowsOf(ctx, key);
    for (const row of rows) {
      for (const [field, value] of Object.entries(row)) {
        if (NOT_COLUMNS.has(field) || isOverDeepValue(value)) continue;
        const problem = findTextProblem(value, columnOf(field), 0, MAX_CONFIG_JSON_DEPTH);
        if (problem?.code === 'INVALID_TEXT') ctx.sink.violation(table, shownId(row[pk]), problem.message.slice(0, -1));
      }
    }
  }
}

/** A value read as OVER_DEEP_VALUE: its row and column. */
export interface OverDeepValue {
  table: string;
  id: string;
  column: string;
}

/**
 * Every value read as OVER_DEEP_VALUE (core/config/json-depth.ts): JSON nested deeper than any config needs, which
 * the engine's recursive walks cannot take. Named by column, so the author knows which value to rewrite.
 */
export function checkOverDeepJson(ctx: ValidationContext): OverDeepValue[] {
  const found: OverDeepValue[] = [];
  for (const key of Object.keys(CONFIG_TABLE_NAMES) as (keyof ConfigRows)[]) {
    const { table, pk, rows } = rowsOf(ctx, key);
    for (const row of rows) {
      for (const [field, value] of Object.entries(row)) {
        if (!isOverDeepValue(value)) continue;
        const at = { table, id: shownId(row[pk]), column: columnOf(field) };
        ctx.sink.violation(at.table, at.id, `${at.column} is JSON nested deeper than ${MAX_CONFIG_JSON_DEPTH} levels`);
        found.push(at);
      }
    }
  }
  return found;
}

/**
 * `violations` without what other checks said about an over-deep value's placeholder ("json_schema must be a JSON
 * object"): the value they judged is not the author's, and its own violation already names the column.
 */
export function withoutOverDeepEchoes(
  violations: ConfigViolation[],
  overDeep: readonly OverDeepValue[]
): ConfigViolation[] {
  if (overDeep.length === 0) return violations;
  const own = (v: ConfigViolation, at: OverDeepValue) => v.table === at.table && v.id === at.id;
  return violations.filter(
    (v) =>
      !overDeep.some((at) => own(v, at) && v.reason.startsWith(`${at.column} `) && !v.reason.includes('nested deeper'))
  );
}

/**
 * Free text that prompts show the model as written: intents' description and llm_hint (the intent model), tools'
 * descriptions (the planner), a schema's description (schema_description), a pending action's (the disambiguation
 * question) and the semantic catalog's. Each is sent on every turn that builds its prompt, as a template is.
 */
const PROMPT_TEXT: { readonly [K in keyof ConfigRows]?: readonly (keyof ConfigRows[K][number] & string)[] } = {
  intents: ['description', 'llmHint'],
  outputSchemas: ['description'],
  pendingActions: ['description'],
  mcpTools: ['description'],
  semanticConcepts: ['description'],
  semanticEntities: ['description'],
  semanticQueryClasses: ['description'],
};

/** The template size policy (checkTemplateSize) for that free text. */
export function checkPromptTextSizes(ctx: ValidationContext): void {
  for (const [key, fields] of Object.entries(PROMPT_TEXT) as [keyof ConfigRows, readonly string[]][]) {
    const { table, pk, rows } = rowsOf(ctx, key);
    for (const row of rows) {
      if (row['enabled'] === false) continue;
      for (const field of fields) {
        const text = row[field];
        if (typeof text === 'string')
          checkTemplateSize(ctx, { table, id: String(row[pk]), column: columnOf(field), reader: 'model' }, text);
      }
    }
  }
}
