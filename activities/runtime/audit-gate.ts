import { auditPolicyOf, FULL_AUDIT_POLICY, type AuditPolicy, type AuditRateLimit } from '../../core/audit/policy';
import type { ConfigSnapshot } from '../../core/config/types';
import type { JsonObject } from '../../core/json';
import type { Clock } from '../deps';

/**
 * Decides, for the activities of one process, which policy audit writes follow and whether a row is
 * still within the rate limit. Built once, in the composition root: the rate limit's counters are
 * the process's, as the Java engine's are the JVM's.
 */
export interface AuditGate {
  /** The policy of writes under this config (null: the config could not be read; every row is kept). */
  policy(snapshot: ConfigSnapshot | null): AuditPolicy;
  /** Counts the row against its bucket; false when the bucket is full for this window. */
  withinRate(limit: AuditRateLimit, conversationId: string, stage: string): boolean;
  /**
   * Hears of each driver decision (a TURN_DECISION row's payload) once (audit-writer.ts says when), whatever
   * activity carried it and however often it was retried: the worker counts loop limits and guardrail blocks.
   */
  decisionRecorded?(decision: JsonObject): void;
}

/** What the worker hears from its gate (configuredAuditGate). */
export interface AuditGateListeners {
  /** Each row the rate limit drops. */
  rateLimited?: () => void;
  decisionRecorded?: (decision: JsonObject) => void;
}

interface Window {
  startedAt: number;
  count: number;
}

/**
 * The configured policy (ce_config `AuditService.*`) and a fixed-window counter per bucket; the
 * listeners hear of rows the limit drops and of decisions recorded (the worker counts them in its metrics).
 */
export function configuredAuditGate(clock: Clock, listeners: AuditGateListeners = {}): AuditGate {
  const windows = new Map<string, Window>();
  let sweptAt = Number.NEGATIVE_INFINITY;
  return {
    ...(listeners.decisionRecorded ? { decisionRecorded: listeners.decisionRecorded } : {}),
    policy: (snapshot) => (snapshot ? auditPolicyOf(snapshot) : FULL_AUDIT_POLICY),
    withinRate(limit, conversationId, stage) {
      if (!limit.enabled) return true;
      const key = `${limit.perConversation ? conversationId : '*'}|${limit.perStage ? stage.toUpperCase() : '*'}`;
      const now = clock.now().getTime();
      let window = windows.get(key);
      if (!window) {
        // At most one sweep per window: a flood of new buckets must not make every row scan them all.
        if (windows.size >= limit.maxTrackedBuckets && now - sweptAt >= limit.windowMs) {
          sweptAt = now;
          sweep(windows, now, limit.windowMs);
        }
        // Still full of live windows: a flood of new buckets is itself what the limit is for.
        if (windows.size >= limit.maxTrackedBuckets) return dropped();
        window = { startedAt: now, count: 0 };
        windows.set(key, window);
      }
      if (now - window.startedAt >= limit.windowMs) {
        window.startedAt = now;
        window.count = 0;
      }
      if (window.count >= limit.maxEvents) return dropped();
      window.count += 1;
      return true;
    },
  };

  function dropped(): false {
    listeners.rateLimited?.();
    return false;
  }
}

/** Forgets windows that have ended: their next row starts a fresh one anyway. */
function sweep(windows: Map<string, Window>, now: number, windowMs: number): void {
  for (const [key, window] of windows) if (now - window.startedAt >= windowMs) windows.delete(key);
}

/**
 * Every row, with `_meta`, whatever the config says: a what-if replay compares the trail its draft
 * produces with the recorded one, and reads its own rows back, so it must write all of them.
 */
export const fullAuditGate: AuditGate = {
  policy: () => FULL_AUDIT_POLICY,
  withinRate: () => true,
};
