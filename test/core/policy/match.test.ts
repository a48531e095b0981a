import { blockingPolicy } from '../../../core/policy/match';
import { policyRow, snapshotOf } from '../../support/config-rows';

describe('ce_policy CONTAINS, STARTS_WITH and EXACT compare letters as Java equalsIgnoreCase does', () => {
  const blocks = (ruleType: string, pattern: string, text: string) =>
    blockingPolicy(snapshotOf({ policies: [policyRow({ ruleType, pattern, responseText: 'No.' })] }), text) !==
    undefined;

  it.each([
    ['CONTAINS', 'İPTAL', 'siparişi iptal et', true],
    ['CONTAINS', 'ΟΔΟΣ', 'ΟΔΟΣΗΜΑΝΣΗ', true],
    ['STARTS_WITH', 'İptal', '  IPTAL et', true],
    ['EXACT', 'ıptal', ' İptal ', true],
    ['CONTAINS', 'strasse', 'straße', false],
  ])('%s %s on "%s" → %s', (ruleType, pattern, text, expected) => {
    expect(blocks(ruleType, pattern, text)).toBe(expected);
  });
});
