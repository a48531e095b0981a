import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

/** The project root: this file runs from worker/ (tsx) and, compiled, from dist/worker/. */
const ROOT = basename(join(__dirname, '..')) === 'dist' ? join(__dirname, '..', '..') : join(__dirname, '..');

/** Where `npm run bundle:workflows` writes the pre-built workflow bundle (used in production). */
export const WORKFLOW_BUNDLE_PATH = join(ROOT, 'dist', 'workflow-bundle.js');

export const WORKFLOWS_PATH = require.resolve('../workflows');

export type WorkflowSource = { workflowBundle: { codePath: string } } | { workflowsPath: string };

/** Production runs the pre-built bundle (no webpack at start-up); development bundles from source. */
export function workflowSource(preferBundle = process.env.NODE_ENV === 'production'): WorkflowSource {
  const explicit = process.env['CONVENGINE_WORKFLOW_BUNDLE'];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CONVENGINE_WORKFLOW_BUNDLE=${explicit} does not exist`);
    return { workflowBundle: { codePath: explicit } };
  }
  if (preferBundle && existsSync(WORKFLOW_BUNDLE_PATH)) return { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } };
  return { workflowsPath: WORKFLOWS_PATH };
}
