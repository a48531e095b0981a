// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
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
    {
      // A bare specifier with a path after the package name: `@temporalio/common/lib/…`, `zod/v4/core`.
      regex: '^(?:@[^/]+/[^/]+|[^@./][^/]*)/',
      message:
        "Import a package by its entry point: subpaths are the package's internals (they change without notice and can pull Node code into the workflow bundle).",
    },
  ],
};

// The workflow bundle must not carry the SQL parser (libpg-query's WASM loader, the guardrail walk): only
// activities check SQL. Types may cross.
const workflowRestrictions = {
  paths: deterministicRestrictions.paths,
  patterns: [
    ...deterministicRestrictions.patterns,
    {
      group: ['**/core/sql', '**/core/sql/**'],
      allowTypeImports: true,
      message: 'core/sql (the SQL parser and guardrail) runs in activities, never in the workflow bundle.',
    },
  ],
};

// Replayed and shared code reads no clock, randomness or environment of its own: time comes in as input
// (core/) or from the workflow's deterministic clock (workflows/clock.ts), configuration from activities.
const deterministicSyntax = {
  'no-restricted-syntax': [
    'error',
    {
      selector: 'ImportExpression',
      message: 'No dynamic import() in deterministic code: the workflow bundle must see every module statically.',
    },
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: 'new Date() reads the wall clock: take the time as input (core/) or use workflowNow() (workflows/).',
    },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'process', property: 'env', message: 'Configuration is read once, in worker/ or config/env.ts.' },
    {
      object: 'Date',
      property: 'now',
      message: 'Date.now() reads the wall clock: take the time as input (core/) or use workflowNow() (workflows/).',
    },
    { object: 'Math', property: 'random', message: 'Randomness is not replayable: derive values from the input.' },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'coverage/**',
      'bin/**',
      'test/replay/histories/**',
      '.convengine/**',
      'test/lint/fixtures/**',
    ],
  },
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
    rules: { '@typescript-eslint/no-restricted-imports': ['error', deterministicRestrictions], ...deterministicSyntax },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', workflowRestrictions] },
  },
  {
    // Env validated once: config/env.ts reads the process environment and checks it at start; the rest of the product
    // takes the parsed Env. Where the environment is passed on whole (HTTP tool rows' toolEnv, a child process's),
    // the line says so. core/ and workflows/ forbid it above; tests, scripts and benchmarks set their own.
    files: ['**/*.ts'],
    ignores: ['config/**', 'core/**', 'workflows/**', 'test/**', 'scripts/**', 'bench/**', 'cli/temporal/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read environment variables through loadEnv (config/env.ts).' },
      ],
    },
  },
  {
    // Module cycles make initialisation order fragile and blur the layers; break one by moving the shared
    // type or constant into the lower module.
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json', '.node'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
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
  {
    // The turn console: browser ES modules served as they are (no build step).
    files: ['console/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'fetch',
          'sessionStorage',
          'URLSearchParams',
          'FormData',
          'TextDecoder',
          'AbortController',
          'Node',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
        ].map((name) => [name, 'readonly'])
      ),
    },
  },
  prettier
);
