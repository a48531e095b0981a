import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';

const ROOT = join(__dirname, '..', '..');
const SOURCES = ['workflows', 'core'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function sourceDigest(): string {
  const hash = createHash('sha256');
  for (const file of SOURCES.flatMap((d) => sourceFiles(join(ROOT, d))).sort()) {
    hash.update(file).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

let cached: Promise<{ code: string }> | undefined;

/**
 * The workflow bundle, built once per source version and shared across test files through a
 * temp file: webpack costs ~2 s, and every workflow test file needs the same bundle.
 */
export function testWorkflowBundle(): Promise<{ code: string }> {
  cached ??= (async () => {
    const path = join(tmpdir(), `convengine-workflows-${sourceDigest()}.js`);
    if (existsSync(path)) return { code: readFileSync(path, 'utf8') };
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(ROOT, 'workflows'),
      logger: quietLogger,
    });
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, path);
    return { code };
  })();
  return cached;
}

/**
 * The workflow code of a build before PARKED_MEMO_PATCH (workflows/turn-versions.ts, replaced by
 * before-parked-memo/turn-versions.ts): a turn it parks records no ParkedCall memo, as the turns parked when the patch
 * ships. Built per call (~2 s): only the tests of reading such turns need it.
 */
export async function workflowBundleBeforeParkedMemo(): Promise<{ code: string }> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: join(ROOT, 'workflows'),
    logger: quietLogger,
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        alias: {
          ...(config.resolve?.alias as Record<string, string | false>),
          [`${join(ROOT, 'workflows', 'turn-versions')}$`]: join(__dirname, 'before-parked-memo', 'turn-versions.ts'),
        },
      },
    }),
  });
  return { code };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: noop };

/** Replays a finished workflow's history against the current bundle; rejects on any nondeterminism. */
export async function replayHistoryOf(handle: WorkflowHandle): Promise<void> {
  const id = handle.workflowId;
  await Worker.runReplayHistory(
    { workflowBundle: await testWorkflowBundle(), replayName: id },
    await handle.fetchHistory(),
    id
  );
}
