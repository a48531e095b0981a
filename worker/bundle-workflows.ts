import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowInterceptorModules } from '../observability/worker-options';
import { WORKFLOW_BUNDLE_PATHS, WORKFLOWS_PATH, type WorkflowBundleVariant } from './bundle';

/** `npm run bundle:workflows`: pre-builds both workflow bundle variants for production images. */
async function main(): Promise<void> {
  // Both go in: the image decides at run time, by whether tracing is on, which one its workers run.
  for (const variant of Object.keys(WORKFLOW_BUNDLE_PATHS) as WorkflowBundleVariant[]) {
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: workflowInterceptorModules(variant),
    });
    const path = WORKFLOW_BUNDLE_PATHS[variant];
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, code);
    console.log(`workflow bundle (${variant}) written to ${path} (${Math.round(code.length / 1024)} KiB)`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
