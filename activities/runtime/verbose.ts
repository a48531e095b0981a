import { audit, type AuditRecord } from '../../core/audit';
import type { ConfigSnapshot } from '../../core/config/types';
import { buildPromptVars } from '../../core/prompt/vars';
import { sessionSchemaSubset } from '../../core/schema/subset';
import type { Session } from '../../core/session';
import { VERBOSE_PROGRESS, isVerbosePayload, resolveVerbose, type VerboseEvent } from '../../core/verbose';

/** What a progress message is resolved against: the pinned config, the session now, the step's clock. */
export interface VerboseSource {
  snapshot: ConfigSnapshot;
  session: Session;
  now: string;
}

/**
 * The VERBOSE_PROGRESS audit row for one event, or null when the config has no message for it.
 * Written with the step's other rows, the SSE stream forwards it as a VERBOSE_PROGRESS event and
 * the step summary carries its text to the workflow (current details). A config without any
 * enabled ce_verbose row publishes nothing, not even the generic error message.
 */
export function verboseAudit(source: VerboseSource, event: VerboseEvent): AuditRecord | null {
  const rows = source.snapshot.rows.verboses ?? [];
  if (!rows.some((r) => r.enabled)) return null;
  const { session, snapshot, now } = source;
  const payload = resolveVerbose(
    rows,
    { ...event, intent: session.intent, state: session.state, conversationId: session.conversationId },
    () => buildPromptVars(session, { schemaJson: sessionSchemaSubset(snapshot, session), now })
  );
  if (payload === null) return null;
  const record = audit('VERBOSE_PROGRESS', payload);
  record.meta = { intent: session.intent, state: session.state };
  return record;
}

/** The text of the last progress message among a step's audit rows, if any. */
export function lastProgress(records: readonly AuditRecord[]): string | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i] as AuditRecord;
    if (record.stage === VERBOSE_PROGRESS && isVerbosePayload(record.payload)) return record.payload.text;
  }
  return undefined;
}
