import type { SettingDefinition } from './setting';
import { cutText } from '../text/cut-text';

function cell(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const short = text.length > 60 ? `${cutText(text, 57)}…` : text;
  return short.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The ce_config tunables as a markdown table, for docs/configuration.md. */
export function settingsTable(settings: readonly SettingDefinition[]): string {
  const rows = settings.map((s) => {
    const kind = s.values ? `${s.kind} (${s.values.join(', ')})` : s.kind;
    return `| ${s.configType} | ${s.configKey} | ${kind} | ${cell(s.default)} | ${cell(s.description)} |`;
  });
  return [
    '| config_type | config_key | kind | default | what it does |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

export const SETTINGS_START = '<!-- settings:start -->';
export const SETTINGS_END = '<!-- settings:end -->';

/** The document with its generated section replaced by `table`. */
export function withSettingsTable(document: string, table: string): string {
  const start = document.indexOf(SETTINGS_START);
  const end = document.indexOf(SETTINGS_END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has no settings markers');
  return `${document.slice(0, start + SETTINGS_START.length)}\n${table}\n${document.slice(end)}`;
}
