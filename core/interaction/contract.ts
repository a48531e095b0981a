import { normalizeScopeValue, rankByScope } from '../config/scope';
import type { ConfigSnapshot, PromptTemplateRow } from '../config/types';
import { INTERACTION_MODES } from '../config/vocabulary';
import { isJsonObject, tryParseJson, type Json } from '../json';
import { compareCodePoints } from '../text/compare-code-points';

export type InteractionMode = (typeof INTERACTION_MODES)[number];

export type Capability = 'affirm' | 'edit' | 'retry' | 'reset';

/** Unknown or blank modes mean NORMAL (§5.4). */
export function parseInteractionMode(raw: string | null): InteractionMode {
  const mode = normalizeScopeValue(raw);
  return (INTERACTION_MODES as readonly string[]).includes(mode) ? (mode as InteractionMode) : 'NORMAL';
}

/** The contract JSON; stored as jsonb, sometimes as a JSON string inside it. */
function contractOf(row: PromptTemplateRow): Json | null {
  const raw = row.interactionContract;
  if (typeof raw === 'string') return tryParseJson(raw) ?? null;
  return raw;
}

const MODE_DEFAULTS: Record<Capability, readonly InteractionMode[]> = {
  affirm: ['CONFIRM'],
  edit: ['CONFIRM', 'REVIEW'],
  retry: ['ERROR', 'PROCESSING'],
  reset: ['COLLECT', 'CONFIRM', 'REVIEW', 'ERROR'],
};

/**
 * Whether a template allows a capability: an explicit `allows` list decides alone (a list without
 * the capability disables it even where the mode would default it on); otherwise the mode's default.
 */
export function allowsCapability(row: PromptTemplateRow, capability: Capability): boolean {
  const contract = contractOf(row);
  const allows = isJsonObject(contract) ? contract['allows'] : undefined;
  if (Array.isArray(allows)) return allows.some((a) => typeof a === 'string' && a.trim().toLowerCase() === capability);
  return MODE_DEFAULTS[capability].includes(parseInteractionMode(row.interactionMode));
}

function hasInteractionSemantics(row: PromptTemplateRow): boolean {
  return (row.interactionMode ?? '').trim() !== '' || contractOf(row) !== null;
}

/** The most specific enabled template with interaction semantics for intent/state; output_format is ignored. */
export function interactionTemplate(
  snapshot: ConfigSnapshot,
  intent: string,
  state: string
): PromptTemplateRow | undefined {
  const rows = snapshot.rows.promptTemplates.filter((t) => t.enabled && hasInteractionSemantics(t));
  return rankByScope(
    rows,
    intent,
    state,
    (a, b) => compareCodePoints(b.createdAt, a.createdAt) || b.templateId - a.templateId
  )[0];
}
