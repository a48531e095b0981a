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
  projects: [
    project('unit', ['core', 'scripted-llm']),
    project('db', ['db', 'activities', 'pipeline', 'config'], { testTimeout: 60000 }),
    project('workflow', ['devserver', 'workflows', 'replay', 'worker'], { testTimeout: 120000 }),
    project('e2e', ['api', 'cli', 'e2e', 'reliability', 'compose'], { testTimeout: 180000 }),
  ],
};
