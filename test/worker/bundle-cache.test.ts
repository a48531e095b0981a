/**
 * The workflow bundle cache of `convengine start` / `convengine worker` from sources: the key follows
 * the sources, a build lands once under its key, and concurrent callers in one process share it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noopSpanProcessor, setupTracing } from '../../observability/tracing';
import { workflowBundleVariant } from '../../observability/worker-options';
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
    const key = workflowBundleKey('plain', root);
    expect(workflowBundleKey('plain', root)).toBe(key);
    writeFileSync(join(root, 'core', 'turn', 'driver.ts'), 'export const b = 3;\n');
    const edited = workflowBundleKey('plain', root);
    expect(edited).not.toBe(key);
    writeFileSync(join(root, 'core', 'turn', 'new-step.ts'), 'export const c = 4;\n');
    const added = workflowBundleKey('plain', root);
    expect(added).not.toBe(edited);
    writeFileSync(join(root, 'README.md'), 'not a source\n');
    expect(workflowBundleKey('plain', root)).toBe(added);
    expect(workflowBundleKey('traced', root)).not.toBe(added);
  });

  it('runs the traced variant only while tracing is on', async () => {
    expect(workflowBundleVariant()).toBe('plain');
    const tracing = setupTracing({ serviceName: 'bundle-variant-test', spanProcessor: noopSpanProcessor });
    try {
      expect(workflowBundleVariant()).toBe('traced');
    } finally {
      await tracing?.shutdown();
    }
    expect(workflowBundleVariant()).toBe('plain');
  });

  it('builds once per key, shares the build between concurrent callers, and reuses the file', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'ce-bundle-cache-'));
    const [first, second] = await Promise.all([
      cachedWorkflowBundle('plain', cache),
      cachedWorkflowBundle('plain', cache),
    ]);
    expect(second).toBe(first);
    expect(first).toBe(join(cache, `${workflowBundleKey('plain')}.js`));
    expect(readdirSync(cache)).toEqual([`${workflowBundleKey('plain')}.js`]);
    const built = statSync(first).mtimeMs;
    expect(await cachedWorkflowBundle('plain', cache)).toBe(first);
    expect(statSync(first).mtimeMs).toBe(built);
    // Only the traced variant carries OpenTelemetry's workflow interceptors.
    const traced = await cachedWorkflowBundle('traced', cache);
    expect(readFileSync(traced, 'utf8')).toContain('OpenTelemetryInboundInterceptor');
    expect(readFileSync(first, 'utf8')).not.toContain('OpenTelemetryInboundInterceptor');
  });
});
