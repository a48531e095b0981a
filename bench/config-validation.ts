import { validateConfig } from '../core/config/validate';
import { largeConfigRows } from '../test/support/large-config';

/**
 * Benchmark: validateConfig on a generated large deployment's config (test/support/large-config.ts), as a config
 * store validates it when the tables change. The first run compiles every JSON Schema; later runs find the
 * compiled ones cached, as a running worker does after a one-row edit. Run: `npx tsx bench/config-validation.ts`.
 */
export interface ConfigValidationBench {
  intents: number;
  rules: number;
  firstMs: number;
  laterMs: number;
  runs: number;
}

export function benchConfigValidation(intents = 300, runs = 3): ConfigValidationBench {
  const rows = largeConfigRows(intents);
  let started = performance.now();
  validateConfig(rows);
  const firstMs = performance.now() - started;
  started = performance.now();
  for (let i = 0; i < runs; i++) validateConfig(rows);
  return { intents, rules: rows.rules.length, firstMs, laterMs: (performance.now() - started) / runs, runs };
}

if (require.main === module) {
  const r = benchConfigValidation();
  console.log(
    `config validation, ${r.intents} intents / ${r.rules} rules: first ${r.firstMs.toFixed(0)} ms, ` +
      `later ${r.laterMs.toFixed(0)} ms (${r.runs} runs)`
  );
}
