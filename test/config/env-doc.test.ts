import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_VARIABLES } from '../../config/env';

/** The variables in the first column of docs/configuration.md's Environment table (`A` / `B` rows name two). */
function documentedVariables(): string[] {
  const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Environment'), doc.indexOf('## `ce_config` tunables'));
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z0-9_*]+)`/g)].map((m) => m[1] as string));
}

describe('docs/configuration.md, Environment', () => {
  it('documents every variable loadEnv reads', () => {
    const documented = new Set(documentedVariables());
    expect(ENV_VARIABLES.filter((name) => !documented.has(name))).toEqual([]);
  });

  it('documents only variables the process reads: loadEnv, the cache folder, or HTTP tool rows', () => {
    const read = new Set<string>([...ENV_VARIABLES, 'CONVENGINE_CACHE_DIR', 'CONVENGINE_TOOL_*']);
    expect(documentedVariables().filter((name) => !read.has(name))).toEqual([]);
  });
});
