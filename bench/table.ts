/** One row of the benchmark table: metric, value, how it was measured. */
export type Row = [metric: string, value: string, notes: string];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A markdown table; the default header is the metric / value / notes of a Row. */
export function markdownTable(rows: readonly string[][], header: string[] = ['Metric', 'Value', 'Notes']): string {
  const lines = [`| ${header.map(cell).join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows) lines.push(`| ${row.map(cell).join(' | ')} |`);
  return lines.join('\n');
}
