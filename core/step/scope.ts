import type { AuditRecord } from '../audit';
import { cloneAsJson, type JsonObject } from '../json';
import type { Session } from '../session';
import type { StepOutput, StopResult } from '../turn/contracts';

/** Deep copy of a session; steps work on their own copy and return it. */
export function cloneSession(session: Session): Session {
  return cloneAsJson(session) as Session;
}

/** Outputs of sub-engines (rules, resolvers) that a step folds into its own. */
export interface PartialOutput {
  session: Session;
  audits: readonly AuditRecord[];
  stop?: StopResult;
}

/**
 * The working state of one step: a private copy of the session plus the audits emitted so far,
 * each stamped with the intent/state of that moment. If the step fails, the runtime still
 * persists the audits emitted before the failure (e.g. RESPONSE_MAPPING_NOT_FOUND).
 */
export class StepScope {
  session: Session;
  readonly audits: AuditRecord[] = [];
  stop: StopResult | undefined;

  constructor(session: Session) {
    this.session = cloneSession(session);
  }

  audit(stage: string, payload: JsonObject = {}): void {
    this.audits.push({ stage, payload, meta: { intent: this.session.intent, state: this.session.state } });
  }

  /** Takes over the session, audits and stop of a sub-engine that ran on (a copy of) this scope's session. */
  absorb(part: PartialOutput): void {
    // Updated in place so references to `scope.session` held by the step stay current.
    const target = this.session as unknown as Record<string, unknown>;
    for (const key of Object.keys(target)) if (!(key in part.session)) delete target[key];
    Object.assign(target, part.session);
    this.audits.push(...part.audits);
    if (part.stop && !this.stop) this.stop = part.stop;
  }

  output(): StepOutput {
    return this.stop
      ? { session: this.session, audits: this.audits, stop: this.stop }
      : { session: this.session, audits: this.audits };
  }
}
