/** One row of the benchmark table: metric, value, how it was measured. */
export type Row = [metric: string, value: string, notes: string];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| Metric | Value | Notes |', '| --- | --- | --- |'];
  for (const [metric, value, notes] of rows) lines.push(`| ${cell(metric)} | ${cell(value)} | ${cell(notes)} |`);
  return lines.join('\n');
}
