/** Which workflow bundle a worker runs, from the parsed environment only (config/env.ts validates it once). */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WORKFLOW_BUNDLE_PATHS, WORKFLOWS_PATH, workflowSource } from '../../worker/bundle';

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

describe('workflowSource', () => {
  it('runs the bundle CONVENGINE_WORKFLOW_BUNDLE names, for either variant, and refuses one that is not there', () => {
    const bundle = join(mkdtempSync(join(tmpdir(), 'ce-bundle-')), 'workflow-bundle.js');
    writeFileSync(bundle, '');
    for (const variant of ['plain', 'traced'] as const) {
      expect(workflowSource(variant, { CONVENGINE_WORKFLOW_BUNDLE: bundle })).toEqual({
        workflowBundle: { codePath: bundle },
      });
    }
    expect(() => workflowSource('plain', { CONVENGINE_WORKFLOW_BUNDLE: `${bundle}.missing` })).toThrow(
      `CONVENGINE_WORKFLOW_BUNDLE=${bundle}.missing does not exist`
    );
  });

  it('runs the pre-built bundle only under NODE_ENV=production, and bundles from source otherwise', () => {
    const prebuilt = WORKFLOW_BUNDLE_PATHS.plain;
    expect(workflowSource('plain', { NODE_ENV: 'production' })).toEqual(
      existsSync(prebuilt) ? { workflowBundle: { codePath: prebuilt } } : { workflowsPath: WORKFLOWS_PATH }
    );
    expect(workflowSource('plain', { NODE_ENV: 'development' })).toEqual({ workflowsPath: WORKFLOWS_PATH });
  });

  it('reads no variable past the environment it is given', () => {
    const saved = { bundle: process.env['CONVENGINE_WORKFLOW_BUNDLE'], nodeEnv: process.env['NODE_ENV'] };
    process.env['CONVENGINE_WORKFLOW_BUNDLE'] = '/nonexistent/workflow-bundle.js';
    process.env['NODE_ENV'] = 'production';
    try {
      expect(workflowSource('plain', {})).toEqual({ workflowsPath: WORKFLOWS_PATH });
    } finally {
      restore('CONVENGINE_WORKFLOW_BUNDLE', saved.bundle);
      restore('NODE_ENV', saved.nodeEnv);
    }
  });
});
