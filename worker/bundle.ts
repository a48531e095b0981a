import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Env } from '../config/env';

/** The project root: this file runs from worker/ (tsx) and, compiled, from dist/worker/. */
const ROOT = basename(join(__dirname, '..')) === 'dist' ? join(__dirname, '..', '..') : join(__dirname, '..');

/**
 * The workflow bundle is built in two variants. `traced` carries OpenTelemetry's workflow interceptors; `plain`
 * does not. A worker runs the traced one only while tracing is on: the interceptors wrap every scheduled step in
 * spans and promises and send each span out of the sandbox, which more than doubled the workflow thread's CPU per
 * turn with tracing off (replaying the seed turns: ~120 ms plain, ~200 ms traced). Interceptors only add headers,
 * so either variant replays histories recorded by the other.
 */
export type WorkflowBundleVariant = 'plain' | 'traced';

/** Where `npm run bundle:workflows` writes the pre-built workflow bundles (used in production). */
export const WORKFLOW_BUNDLE_PATHS: Readonly<Record<WorkflowBundleVariant, string>> = {
  plain: join(ROOT, 'dist', 'workflow-bundle.js'),
  traced: join(ROOT, 'dist', 'workflow-bundle-traced.js'),
};

export const WORKFLOWS_PATH = require.resolve('../workflows');

export type WorkflowSource = { workflowBundle: { codePath: string } } | { workflowsPath: string };

/** The variables that choose a worker's workflow bundle. */
export type WorkflowBundleEnv = Pick<Env, 'NODE_ENV' | 'CONVENGINE_WORKFLOW_BUNDLE'>;

/**
 * Production runs the pre-built bundle of the variant (no webpack at start-up); development bundles from source.
 * CONVENGINE_WORKFLOW_BUNDLE names one bundle for every variant: the operator chose it.
 */
export function workflowSource(variant: WorkflowBundleVariant, env: WorkflowBundleEnv): WorkflowSource {
  const explicit = env.CONVENGINE_WORKFLOW_BUNDLE;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CONVENGINE_WORKFLOW_BUNDLE=${explicit} does not exist`);
    return { workflowBundle: { codePath: explicit } };
  }
  const prebuilt = WORKFLOW_BUNDLE_PATHS[variant];
  if (env.NODE_ENV === 'production' && existsSync(prebuilt)) return { workflowBundle: { codePath: prebuilt } };
  return { workflowsPath: WORKFLOWS_PATH };
}
