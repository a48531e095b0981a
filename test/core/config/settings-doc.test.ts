import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { allSettings } from '../../../core/config/settings';
import { settingsTable, withSettingsTable } from '../../../core/config/settings-table';

describe('docs/configuration.md', () => {
  it('lists every declared ce_config tunable as declared (run `npm run docs:settings` after changing one)', () => {
    const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'configuration.md'), 'utf8');
    expect(withSettingsTable(doc, settingsTable(allSettings))).toBe(doc);
  });
});
