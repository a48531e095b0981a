import fc from 'fast-check';
import { admitsAudit, auditPatternMatches, auditPolicyOf, FULL_AUDIT_POLICY } from '../../../core/audit/policy';
import { configRow, snapshotOf } from '../../support/config-rows';

describe('audit policy (core/audit/policy.ts)', () => {
  describe('auditPatternMatches', () => {
    const text = fc.string({ unit: fc.constantFrom('A', 'B', '_', '*'), maxLength: 8 });
    const literal = fc.string({ unit: fc.constantFrom('A', 'B', '_'), maxLength: 8 });

    it('a pattern without a wildcard matches only itself', () => {
      fc.assert(fc.property(literal, literal, (p, v) => auditPatternMatches(p, v) === (p === v)));
    });

    it('head*middle*tail matches every value built that way', () => {
      fc.assert(
        fc.property(literal, literal, literal, literal, literal, (head, a, middle, b, tail) =>
          auditPatternMatches(`${head}*${middle}*${tail}`, `${head}${a}${middle}${b}${tail}`)
        )
      );
    });

    it('agrees with the regular expression the Java engine builds from the pattern', () => {
      const javaRegex = (pattern: string) =>
        new RegExp(
          `^${pattern
            .split('*')
            .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
          's'
        );
      fc.assert(fc.property(text, literal, (p, v) => auditPatternMatches(p, v) === javaRegex(p).test(v)));
    });

    it('does not let head and tail overlap', () => {
      expect(auditPatternMatches('AB*BA', 'ABA')).toBe(false);
      expect(auditPatternMatches('AB*BA', 'ABBA')).toBe(true);
      expect(auditPatternMatches('A*B*C', 'AC')).toBe(false);
    });
  });

  describe('auditPolicyOf', () => {
    it('is the full policy when nothing is configured', () => {
      expect(auditPolicyOf(snapshotOf({}))).toEqual(FULL_AUDIT_POLICY);
    });

    it('reads AuditService.* rows, upper-cases the patterns and drops blank ones', () => {
      const snapshot = snapshotOf({
        configs: [
          configRow('AuditService', 'LEVEL', 'error_only'),
          configRow('AuditService', 'PERSIST_META', 'no'),
          configRow('AuditService', 'INCLUDE_STAGES', ' mcp_* , ,step_error'),
          configRow('AuditService', 'EXCLUDE_INTENTS', 'faq'),
          configRow('AuditService', 'RATE_LIMIT_ENABLED', 'true'),
          configRow('AuditService', 'RATE_LIMIT_MAX_EVENTS', '5'),
        ],
      });
      const policy = auditPolicyOf(snapshot);
      expect(policy).toMatchObject({
        level: 'ERROR_ONLY',
        persistMeta: false,
        includeStages: ['MCP_*', 'STEP_ERROR'],
        excludeIntents: ['FAQ'],
        rateLimit: { enabled: true, maxEvents: 5, windowMs: 1000 },
      });
      expect(auditPolicyOf(snapshot)).toBe(policy);
    });
  });

  describe('admitsAudit', () => {
    it('applies enabled, level, stages and intents, case-insensitively', () => {
      const policy = { ...FULL_AUDIT_POLICY, includeStages: ['MCP_*'], excludeIntents: ['FAQ'] };
      expect(admitsAudit(policy, 'mcp_tool_call', 'LOAN')).toBe(true);
      expect(admitsAudit(policy, 'MCP_TOOL_CALL', 'faq')).toBe(false);
      expect(admitsAudit(policy, 'RULE_APPLIED', 'LOAN')).toBe(false);
      expect(admitsAudit({ ...policy, enabled: false }, 'MCP_TOOL_CALL', 'LOAN')).toBe(false);
      // No intent yet: an include list of intents keeps nothing, as in the Java engine.
      expect(admitsAudit({ ...FULL_AUDIT_POLICY, includeIntents: ['LOAN'] }, 'USER_INPUT', null)).toBe(false);
      expect(admitsAudit({ ...FULL_AUDIT_POLICY, includeIntents: ['*'] }, 'USER_INPUT', '')).toBe(true);
    });
  });
});
