import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'architecture.md');

/** `npm run docs:steps [doc]`, in a child process: Jest's VM cannot load prettier's ES modules. */
function regenerate(path: string): void {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'steps-reference.ts'), path], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

describe('npm run docs:steps', () => {
  it('leaves docs/architecture.md as it is when the steps did not change, so `npm run lint` still passes', () => {
    const doc = readFileSync(DOC, 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'steps-doc-'));
    const copy = join(dir, 'architecture.md');
    try {
      writeFileSync(copy, doc);
      regenerate(copy);
      expect(readFileSync(copy, 'utf8')).toBe(doc);
      regenerate(copy);
      expect(readFileSync(copy, 'utf8')).toBe(doc);
      // A generator that wrote the repository's doc instead of the copy changed it.
      expect(readFileSync(DOC, 'utf8')).toBe(doc);
    } finally {
      writeFileSync(DOC, doc);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
