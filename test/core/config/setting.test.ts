import { readSetting } from '../../../core/config/setting';
import { GuardrailSettings } from '../../../core/config/settings/pipeline';
import { snapshotOf } from '../../../db/config/load';
import { configSetting } from '../../../db/seed/builders';
import { validBaseConfig } from '../../support/config-fixtures';

const withSensitivePatterns = (value: string) => {
  const rows = validBaseConfig();
  rows.configs.push(
    configSetting({ configId: 40, configType: 'GuardrailStep', configKey: 'SENSITIVE_PATTERNS', configValue: value })
  );
  return snapshotOf(rows);
};

describe('reading a setting at run time', () => {
  it('gives the patterns of a regexList without its blank entries', () => {
    const snapshot = withSensitivePatterns('["", "(?i)delete account", "  "]');
    expect(readSetting(snapshot, GuardrailSettings.sensitivePatterns)).toEqual(['(?i)delete account']);
  });

  it('names a bad entry by its index in the array as stored, blanks counted', () => {
    expect(() => readSetting(withSensitivePatterns('["", "order("]'), GuardrailSettings.sensitivePatterns)).toThrow(
      /SENSITIVE_PATTERNS \[1\]: /
    );
  });

  it('refuses a value no validation judged (a version stored before a rule was added) as a final CONFIG_INVALID', () => {
    // A lookahead: valid for the old engine, refused by this one.
    const snapshot = withSensitivePatterns('["(?=.*card)"]');
    expect(() => readSetting(snapshot, GuardrailSettings.sensitivePatterns)).toThrow(
      expect.objectContaining({ type: 'CONFIG_INVALID', retryable: false })
    );
  });
});
