/**
 * The workflow bundle cache of `convengine start` / `convengine worker` from sources: the key follows
 * the sources, a build lands once under its key, and concurrent callers in one process share it.
 */
import { mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cachedWorkflowBundle, workflowBundleKey } from '../../worker/bundle-cache';

jest.setTimeout(180_000);

function sourceTree(): string {
  const root = mkdtempSync(join(tmpdir(), 'ce-bundle-key-'));
  mkdirSync(join(root, 'workflows'));
  mkdirSync(join(root, 'core', 'turn'), { recursive: true });
  writeFileSync(join(root, 'workflows', 'index.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'core', 'turn', 'driver.ts'), 'export const b = 2;\n');
  return root;
}

describe('workflow bundle cache', () => {
  it('keys the bundle on every source file under workflows/ and core/', () => {
    const root = sourceTree();
    const key = workflowBundleKey(root);
    expect(workflowBundleKey(root)).toBe(key);
    writeFileSync(join(root, 'core', 'turn', 'driver.ts'), 'export const b = 3;\n');
    const edited = workflowBundleKey(root);
    expect(edited).not.toBe(key);
    writeFileSync(join(root, 'core', 'turn', 'new-step.ts'), 'export const c = 4;\n');
    const added = workflowBundleKey(root);
    expect(added).not.toBe(edited);
    writeFileSync(join(root, 'README.md'), 'not a source\n');
    expect(workflowBundleKey(root)).toBe(added);
  });

  it('builds once per key, shares the build between concurrent callers, and reuses the file', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ce-bundle-cache-'));
    const [first, second] = await Promise.all([cachedWorkflowBundle(cache), cachedWorkflowBundle(cache)]);
    expect(second).toBe(first);
    expect(first).toBe(join(cache, `${workflowBundleKey()}.js`));
    expect(readdirSync(cache)).toEqual([`${workflowBundleKey()}.js`]);
    const built = statSync(first).mtimeMs;
    expect(await cachedWorkflowBundle(cache)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(built);
  });
});
