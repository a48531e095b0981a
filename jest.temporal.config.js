/**
 * `npm run test:temporal`: the tiers that talk to Temporal, run against the real server that
 * scripts/test-temporal.ts starts (TEMPORAL_ADDRESS, TEMPORAL_UI_URL), plus test/temporal/, which
 * only makes sense there (the Web UI, the `temporal` CLI runbook, differential checks).
 */
const base = require('./jest.config');

const workflow = base.projects.find((p) => p.displayName === 'workflow');
const roots = ['devserver', 'workflows', 'replay', 'api', 'e2e', 'reliability', 'temporal', 'observability'];

module.exports = {
  ...base,
  projects: [
    {
      ...workflow,
      displayName: 'real-temporal',
      testMatch: roots.map((r) => `<rootDir>/test/${r}/**/*.test.ts`),
      // Tests of our dev server's own internals (robustness, persistence, module structure): they do
      // not depend on TEMPORAL_ADDRESS, so running them here would only repeat them.
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/devserver/(server-robustness|task-dispatch|persistence)\\.test\\.ts$',
        '<rootDir>/test/devserver/structure\\.test\\.ts$',
      ],
    },
  ],
};
