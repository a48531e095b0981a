import { validateConfig } from '../../core/config/validate';
import { formatViolation, type ConfigRows } from '../../core/config/types';
import { validBaseConfig } from './config-fixtures';

/** One way to break validBaseConfig, and exactly what validateConfig must report for it. */
export type ValidateCase = {
  name: string;
  breakIt: (rows: ConfigRows) => void;
  /** Exactly these `table[id]` are reported as violations. */
  violations: string[];
  reason?: RegExp;
  /** Exactly these are reported as warnings (none otherwise). */
  warnings?: string[];
};

export function at<T>(list: T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`fixture has no row ${index}`);
  return item;
}

/** One test per case: break a fresh base config, then exactly the case's `table[id]`s are reported. */
export function itReportsExactly(cases: readonly ValidateCase[]): void {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const rows = validBaseConfig();
    c.breakIt(rows);
    const result = validateConfig(rows);
    const named = (list: { table: string; id: string }[]) =>
      [...new Set(list.map((v) => `${v.table}[${v.id}]`))].sort();
    expect(named(result.violations)).toEqual([...c.violations].sort());
    expect(named(result.warnings)).toEqual([...(c.warnings ?? [])].sort());
    if (c.reason) expect(result.violations.map(formatViolation).join('\n')).toMatch(c.reason);
  });
}
