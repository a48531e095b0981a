// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// Deterministic layers: workflow code is replayed from history and core/ is shared with it,
// so neither may reach I/O, clocks outside the SDK, or activity implementations.
const deterministicRestrictions = {
  paths: [
    ...nodeBuiltins.map((name) => ({ name, message: 'workflows/ and core/ must stay free of Node built-ins.' })),
    { name: 'pg', message: 'Database access belongs in db/ or activities/.' },
    { name: 'drizzle-orm', message: 'Database access belongs in db/ or activities/.' },
    { name: '@anthropic-ai/sdk', message: 'LLM calls belong in activities/.' },
    { name: '@temporalio/client', message: 'Clients belong in api/ or worker/.' },
    { name: '@temporalio/worker', message: 'Workers belong in worker/.' },
    { name: '@temporalio/activity', message: 'Activity context belongs in activities/.' },
    { name: '@grpc/grpc-js', message: 'Network clients are I/O.' },
    { name: 'fastify', message: 'HTTP belongs in api/.' },
  ],
  patterns: [
    {
      group: ['**/activities', '**/activities/*', '**/activities/**'],
      allowTypeImports: true,
      message: 'Import activities only as types.',
    },
    {
      group: [
        '**/db',
        '**/db/*',
        '**/db/**',
        '**/api/**',
        '**/worker/**',
        '**/devserver/**',
        '**/cli/**',
        // The top-level config/ (env parsing). Not `**/config/**`: that would also match core/config.
        '**/config/env',
        '**/config/env.*',
      ],
      allowTypeImports: true,
      message: 'Only types may cross into deterministic code.',
    },
    {
      group: ['drizzle-orm/*', 'pg-*', '@temporalio/client/*', '@temporalio/worker/*'],
      message: 'I/O libraries are not allowed in deterministic code.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'bin/**', 'test/replay/histories/**', '.convengine/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'object-shorthand': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts', 'core/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', deterministicRestrictions] },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier
);
