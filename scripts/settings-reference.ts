import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allSettings } from '../core/config/settings';
import { settingsTable, withSettingsTable } from '../core/config/settings-table';

/** `npm run docs:settings`: regenerates the ce_config table in docs/configuration.md. */
const path = join(__dirname, '..', 'docs', 'configuration.md');
writeFileSync(path, withSettingsTable(readFileSync(path, 'utf8'), settingsTable(allSettings)));
console.log(`updated ${path} (${allSettings.length} settings)`);
