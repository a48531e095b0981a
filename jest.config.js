/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];

const project = (displayName, roots, extra = {}) => ({
  displayName,
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  testMatch: roots.map((r) => `<rootDir>/test/${r}/**/*.test.ts`),
  moduleFileExtensions: ['ts', 'js', 'json'],
  ...extra,
});

module.exports = {
  // Two cores: a wider pool only thrashes the database and the Temporal workers.
  maxWorkers: 2,
  // Jest 30 reads testTimeout only at the top level; DB, workflow and e2e tests need far more than 5 s.
  testTimeout: 120000,
  projects: [
    project('unit', ['core', 'scripted-llm', 'lint', 'bench']),
    project('db', ['db', 'activities', 'pipeline', 'config', 'mcp']),
    project('workflow', ['devserver', 'workflows', 'replay', 'worker']),
    project('e2e', ['api', 'cli', 'e2e', 'reliability', 'compose', 'demo', 'observability']),
  ],
};
