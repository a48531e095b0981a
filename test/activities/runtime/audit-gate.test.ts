import { configuredAuditGate, fullAuditGate } from '../../../activities/runtime/audit-gate';
import { FULL_AUDIT_POLICY } from '../../../core/audit/policy';
import { configRow, snapshotOf } from '../../support/config-rows';

describe('audit gate (activities/runtime/audit-gate.ts)', () => {
  let now = 0;
  const clock = { now: () => new Date(now) };
  const limit = { ...FULL_AUDIT_POLICY.rateLimit, enabled: true, maxEvents: 1, maxTrackedBuckets: 1000 };

  it('tracks at most maxTrackedBuckets live windows; ended ones make room again', () => {
    let dropped = 0;
    const gate = configuredAuditGate(clock, { rateLimited: () => (dropped += 1) });
    for (let i = 0; i < 1000; i += 1) expect(gate.withinRate(limit, `c${i}`, 'S')).toBe(true);
    expect(gate.withinRate(limit, 'c-new', 'S')).toBe(false);
    expect(gate.withinRate(limit, 'c0', 'S')).toBe(false);
    expect(dropped).toBe(2);
    now += limit.windowMs;
    expect(gate.withinRate(limit, 'c-new', 'S')).toBe(true);
    expect(gate.withinRate(limit, 'c0', 'S')).toBe(true);
  });

  it('counts nothing while the rate limit is off', () => {
    const gate = configuredAuditGate(clock);
    const off = { ...limit, enabled: false };
    for (let i = 0; i < 5; i += 1) expect(gate.withinRate(off, 'c', 'S')).toBe(true);
  });

  it('follows the pinned config, the full policy when it could not be read, and ignores config for what-if', () => {
    const quiet = snapshotOf({ configs: [configRow('AuditService', 'LEVEL', 'NONE')] });
    expect(configuredAuditGate(clock).policy(quiet).level).toBe('NONE');
    expect(configuredAuditGate(clock).policy(null)).toBe(FULL_AUDIT_POLICY);
    expect(fullAuditGate.policy(quiet)).toBe(FULL_AUDIT_POLICY);
    expect(fullAuditGate.withinRate(limit, 'c', 'S')).toBe(true);
  });
});
