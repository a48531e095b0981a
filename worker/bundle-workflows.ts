import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULE } from '../observability/worker-options';
import { WORKFLOW_BUNDLE_PATH, WORKFLOWS_PATH } from './bundle';

/** `npm run bundle:workflows`: pre-builds the workflow bundle for production images. */
async function main(): Promise<void> {
  // The tracing interceptors go in always: the image decides at run time whether spans are exported.
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
  });
  mkdirSync(dirname(WORKFLOW_BUNDLE_PATH), { recursive: true });
  writeFileSync(WORKFLOW_BUNDLE_PATH, code);
  console.log(`workflow bundle written to ${WORKFLOW_BUNDLE_PATH} (${Math.round(code.length / 1024)} KiB)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
