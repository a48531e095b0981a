import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { bundleWorkflowCode, Runtime } from '@temporalio/worker';
import { convengineCacheDir } from '../config/cache-dir';
import { workflowBundleVariant, workflowInterceptorModules } from '../observability/worker-options';
import {
  WORKFLOWS_PATH,
  workflowSource,
  type WorkflowBundleEnv,
  type WorkflowBundleVariant,
  type WorkflowSource,
} from './bundle';

const ROOT = join(__dirname, '..');
/** Everything the workflow bundle is built from: our deterministic layers and the pinned dependencies. */
const SOURCE_DIRS = ['workflows', 'core'];
const LOCKFILE = join(ROOT, 'package-lock.json');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|json)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * A key that changes whenever the bundle could: every file under workflows/ and core/ (name and
 * bytes), the lockfile (dependency versions) and the interceptor modules built in (the variant).
 */
export function workflowBundleKey(variant: WorkflowBundleVariant, root = ROOT): string {
  const hash = createHash('sha256');
  const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(join(root, dir))).sort();
  for (const file of files) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  if (existsSync(LOCKFILE)) hash.update(readFileSync(LOCKFILE));
  for (const module of workflowInterceptorModules(variant)) hash.update(relative(root, module)).update('\0');
  return `${variant}-${hash.digest('hex').slice(0, 24)}`;
}

/**
 * The workflow bundle for running from sources, built once per source state and variant and kept in
 * the user cache: webpack takes seconds, and `convengine start` would otherwise pay them on every start.
 * Written to a temporary name and renamed, so concurrent starts never read half a file.
 */
export function cachedWorkflowBundle(
  variant: WorkflowBundleVariant,
  cacheDir = join(convengineCacheDir(), 'workflow-bundles')
): Promise<string> {
  const path = join(cacheDir, `${workflowBundleKey(variant)}.js`);
  // One build per process: `start` warms it while the database and Temporal come up, the worker awaits it.
  let building = inProcess.get(path);
  if (!building) {
    building = existsSync(path) ? Promise.resolve(path) : buildInto(path, variant);
    inProcess.set(path, building);
    building.catch(() => inProcess.delete(path));
  }
  return building;
}

const inProcess = new Map<string, Promise<string>>();

async function buildInto(path: string, variant: WorkflowBundleVariant): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: workflowInterceptorModules(variant),
    logger: Runtime.instance().logger,
  });
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${randomUUID()}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, path);
  return path;
}

/**
 * The bundle a worker runs: the variant tracing asks for (traced only while tracing is on), pre-built when
 * there is one (production, CONVENGINE_WORKFLOW_BUNDLE), else the cached one.
 */
export async function runnableWorkflowSource(
  env: WorkflowBundleEnv,
  variant: WorkflowBundleVariant = workflowBundleVariant()
): Promise<{ workflowBundle: { codePath: string } }> {
  const source: WorkflowSource = workflowSource(variant, env);
  return 'workflowBundle' in source ? source : { workflowBundle: { codePath: await cachedWorkflowBundle(variant) } };
}
