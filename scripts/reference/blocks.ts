import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { ENGINE_CONTEXT_PATHS } from '../../core/context/engine-paths';
import * as v from '../../core/config/vocabulary';
import { LLM_CALL_KINDS } from '../../core/llm';
import { AuditStage } from '../../core/audit/payloads';
import { McpAudit } from '../../core/mcp/constants';
import { DEFAULT_RESERVED_TEXTS, RESERVED_RESPONSE_VARIABLES } from '../../core/response/reserved';
import { RULE_STAGES } from '../../core/rules/engine';
import { RULE_PHASES } from '../../core/rules/phase';
import { SESSION_FACT_NAMES, SYSTEM_INPUT_PARAM_NAMES } from '../../core/templates';
import {
  DETERMINANT_METADATA,
  FRAME_STEP_NAMES,
  STEP_EVENTS,
  STEP_FRAME_DETERMINANTS,
  STEP_MATCH_TYPES,
} from '../../core/verbose';
import * as schema from '../../db/schema';
import { SEMANTIC_LLM_STAGES, type SemanticLlmStages } from '../../activities/tools/semantic/llm';

/**
 * The generated parts of docs/config-reference.md, each between `<!-- gen:NAME -->` and
 * `<!-- /gen:NAME -->`. `npm run docs:reference` rewrites them; a test fails when the document
 * differs from what this produces, so the reference cannot drift from the code.
 */
const ROOT = join(__dirname, '..', '..');

const COLUMN_ENUMS: Readonly<Record<string, readonly string[]>> = {
  'ce_rule.phase': RULE_PHASES,
  'ce_rule.rule_type': v.RULE_TYPES,
  'ce_rule.action': v.RULE_ACTIONS,
  'ce_intent_classifier.rule_type': v.CLASSIFIER_TYPES,
  'ce_policy.rule_type': v.POLICY_TYPES,
  'ce_response.response_type': v.RESPONSE_TYPES,
  'ce_response.output_format': v.RESPONSE_OUTPUT_FORMATS,
  'ce_prompt_template.output_format': v.PROMPT_OUTPUT_FORMATS,
  'ce_prompt_template.interaction_mode': v.INTERACTION_MODES,
  'ce_output_schema.schema_type': v.SCHEMA_TYPES,
  'ce_mcp_tool.tool_group': v.TOOL_GROUPS,
  'ce_mcp_tool.side_effect': v.TOOL_SIDE_EFFECTS,
  'ce_mcp_tool.on_retries_exhausted': v.TOOL_RETRIES_EXHAUSTED_POLICIES,
  'ce_mcp_http_tool.http_method': v.HTTP_METHODS,
  'ce_mcp_http_tool.auth_kind': v.HTTP_AUTH_KINDS,
  'ce_mcp_http_tool.response_mapping_kind': v.HTTP_MAPPING_KINDS,
  'ce_mcp_sql_guardrail.rule_type': v.SQL_GUARDRAIL_RULE_TYPES,
  'ce_verbose.step_match': STEP_MATCH_TYPES,
};

const SCOPED_NOTE = 'exact value or `ANY`';

function tables(): PgTable[] {
  return (Object.values(schema) as unknown[]).filter((t): t is PgTable => is(t, PgTable));
}

function tablesBlock(): string {
  const out: string[] = [];
  for (const table of tables()) {
    const name = getTableName(table);
    out.push(
      `#### \`${name}\``,
      '',
      '| column | type | required | default | values |',
      '| --- | --- | --- | --- | --- |'
    );
    for (const column of Object.values(getTableColumns(table))) {
      const values = COLUMN_ENUMS[`${name}.${column.name}`];
      const scoped = column.name === 'intent_code' || column.name === 'state_code';
      const note = values ? values.join(', ') : scoped && name.startsWith('ce_') ? SCOPED_NOTE : '';
      const required = column.primary ? 'primary key' : column.notNull ? 'yes' : 'no';
      const fallback = column.hasDefault ? defaultOf(column.default) : '';
      out.push(`| ${column.name} | ${column.getSQLType()} | ${required} | ${fallback} | ${note} |`);
    }
    out.push('');
  }
  return out.join('\n').trimEnd();
}

function defaultOf(value: unknown): string {
  if (value === undefined) return '(generated)';
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && 'queryChunks' in value) return 'now()';
  return `\`${JSON.stringify(value)}\``;
}

function listBlock(items: readonly string[]): string {
  return items.map((i) => `- \`${i}\``).join('\n');
}

function contextBlock(): string {
  return [
    '| `context.` path | type | written by | when |',
    '| --- | --- | --- | --- |',
    ...ENGINE_CONTEXT_PATHS.map((p) => `| \`${p.path}\` | ${p.type} | ${p.writtenBy} | ${p.when} |`),
  ].join('\n');
}

function reservedBlock(): string {
  return [
    '| state_code | variables | default text |',
    '| --- | --- | --- |',
    ...Object.entries(DEFAULT_RESERVED_TEXTS).map(
      ([state, text]) =>
        `| ${state} | ${['intent', 'state', ...RESERVED_RESPONSE_VARIABLES[state as keyof typeof DEFAULT_RESERVED_TEXTS]].join(', ')} | ${text} |`
    ),
  ].join('\n');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Top-level keys of the object literal starting at `start` (`{ a: 1, b, c: d, ...e }` → a, b, c; d is a value). */
function literalKeys(text: string, start: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  let token = '';
  let inValue = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i] as string;
    if ('{[('.includes(ch)) depth++;
    else if ('}])'.includes(ch)) {
      depth--;
      if (depth === 0) break;
    }
    if (depth === 1 && (ch === ',' || ch === ':' || ch === '}' || ch === '\n')) {
      const name = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(token)?.[1];
      if (name && !inValue && ch !== '}' && !keys.includes(name)) keys.push(name);
      if (ch === ':') inValue = true;
      else if (ch === ',') inValue = false;
      token = '';
    } else if (depth === 1 && ch !== '{') token += ch;
    else if (depth > 1) token = '';
  }
  return keys;
}

/** `AuditStage.StepExit` → `STEP_EXIT`; a literal stage as it is. */
const stageNamed = (literal: string | undefined, constant: string | undefined): string | undefined =>
  literal ?? (constant ? AuditStage[constant as keyof typeof AuditStage] : undefined);

type AuditStages = Map<string, { keys: Set<string>; files: Set<string> }>;

/** Records `stage` as written in `file`, with the keys of the payload object literal at `text[at]` if there is one. */
function addStage(stages: AuditStages, stage: string, file: string, text: string, at: number): void {
  const entry = stages.get(stage) ?? { keys: new Set<string>(), files: new Set<string>() };
  if (text[at] === '{') literalKeys(text, at).forEach((k) => entry.keys.add(k));
  entry.files.add(relative(ROOT, file));
  stages.set(stage, entry);
}

/** The semantic tools' LLM calls audit `req.stages.<role>`: every call's stage of that role (SEMANTIC_LLM_STAGES). */
function addSemanticLlmStages(stages: AuditStages): void {
  const file = join(ROOT, 'activities', 'tools', 'semantic', 'llm.ts');
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/\baudit\(\s*req\.stages\.(input|output|error)\s*,\s*/g)) {
    const role = m[1] as keyof SemanticLlmStages;
    for (const call of Object.values(SEMANTIC_LLM_STAGES))
      addStage(stages, call[role], file, text, (m.index ?? 0) + m[0].length);
  }
}

/** Audit stages written literally or as AuditStage constants (`audit('STAGE', {...})`), with their payload keys and where. */
function auditBlock(): string {
  const stages: AuditStages = new Map();
  const call = /\baudit\(\s*(?:'([A-Z][A-Z0-9_ ()]+)'|AuditStage\.([A-Za-z]+))\s*,\s*/g;
  for (const dir of ['activities', 'core', 'workflows']) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(call)) {
        const stage = stageNamed(m[1], m[2]);
        if (stage) addStage(stages, stage, file, text, (m.index ?? 0) + m[0].length);
      }
    }
  }
  addSemanticLlmStages(stages);
  // The MCP steps name their stages through constants (core/mcp/constants.ts).
  for (const stage of Object.values(McpAudit)) {
    if (!stages.has(stage))
      stages.set(stage, { keys: new Set(), files: new Set(['core/mcp/constants.ts (McpAudit)']) });
  }
  // Rule evaluation names its stages through constants too, each written with the phase's label.
  for (const stage of Object.values(RULE_STAGES))
    stages.set(`${stage} (<label>)`, { keys: new Set(), files: new Set(['core/rules/engine.ts (RULE_STAGES)']) });
  const rows = [...stages.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return [
    '| stage | payload keys | written in |',
    '| --- | --- | --- |',
    ...rows.map(
      ([stage, e]) => `| \`${stage}\` | ${[...e.keys].join(', ') || '(see code)'} | ${[...e.files].sort().join(', ')} |`
    ),
  ].join('\n');
}

function verboseBlock(): string {
  const code = (items: readonly string[]) => items.map((i) => `\`${i}\``).join(', ');
  const metadata = (determinants: readonly string[]) =>
    determinants.map((d) => `${d}: ${code(DETERMINANT_METADATA[d] ?? []) || '—'}`).join('; ');
  return [
    '| step name | determinants | metadata variables (besides `conversationId`, `stepName`, `determinant`) |',
    '| --- | --- | --- |',
    ...Object.entries(STEP_EVENTS).map(
      ([step, determinants]) => `| \`${step}\` | ${code(determinants)} | ${metadata(determinants)} |`
    ),
    `| every step activity: ${code(FRAME_STEP_NAMES)} | ${code(STEP_FRAME_DETERMINANTS)} | — |`,
  ].join('\n');
}

export const REFERENCE_BLOCKS: Readonly<Record<string, () => string>> = {
  tables: tablesBlock,
  phases: () => listBlock(RULE_PHASES),
  'rule-actions': () => listBlock(v.RULE_ACTIONS),
  'dialogue-acts': () => listBlock(v.DIALOGUE_ACTS),
  'interaction-capabilities': () => listBlock(v.INTERACTION_CAPABILITIES),
  'context-paths': contextBlock,
  'input-params': () => listBlock(SYSTEM_INPUT_PARAM_NAMES),
  'session-facts': () => listBlock(SESSION_FACT_NAMES),
  'llm-kinds': () => listBlock(LLM_CALL_KINDS),
  'reserved-responses': reservedBlock,
  'audit-stages': auditBlock,
  'verbose-events': verboseBlock,
};

/** The document with every generated block replaced; throws when a block's markers are missing. */
export function withReferenceBlocks(document: string): string {
  let out = document;
  for (const [name, render] of Object.entries(REFERENCE_BLOCKS)) {
    const open = `<!-- gen:${name} -->`;
    const close = `<!-- /gen:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`docs/config-reference.md has no ${open} … ${close} block`);
    out = `${out.slice(0, start + open.length)}\n${render()}\n${out.slice(end)}`;
  }
  return out;
}

export const REFERENCE_PATH = join(ROOT, 'docs', 'config-reference.md');
