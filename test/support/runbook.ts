import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { temporalCliBinary, type TestTemporal } from './temporal';

const RUNBOOK = readFileSync(join(__dirname, '..', '..', 'docs', 'runbook.md'), 'utf8');

/** docs/runbook.md's shell blocks marked `<!-- recipe: NAME -->`, by name, as the file has them. */
export const RECIPES = new Map(
  [...RUNBOOK.matchAll(/<!-- recipe: (\S+) -->\s*```bash\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]])
);

/**
 * Runs one recipe of the runbook with bash and the real `temporal` CLI against `temporal`; resolves with its stdout,
 * rejects with its output on failure.
 */
export function runRecipe(temporal: TestTemporal, name: string, vars: Record<string, string>): Promise<string> {
  const script = RECIPES.get(name);
  if (!script) throw new Error(`docs/runbook.md has no recipe ${name}`);
  const env = {
    ...process.env,
    PATH: `${dirname(temporalCliBinary())}:${process.env.PATH ?? ''}`,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    ...vars,
  };
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', `set -euo pipefail\n${script}`], { env, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`recipe ${name} failed: ${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout)
    );
  });
}
