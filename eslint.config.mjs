// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// Deterministic layers: workflow code is replayed from history and core/ is shared with it, so neither may reach
// I/O, clocks outside the SDK, or activity implementations. What they import is an allowlist: core/ imports core/
// and the pure packages below; workflows/ adds itself, the workflow SDK and activities as types. Anything else
// (node:*, pg, pino, prom-client, @opentelemetry/*, @fastify/*, config/, observability/, demo/…) is refused until
// someone shows it does no I/O and adds it here. Relative imports are checked where they resolve
// (import-x/no-restricted-paths below), package names here.

/** Pure packages core/ uses: JSON Schema (ajv), JSONPath, edit distance, lossless JSON numbers, RE2 regexes. */
const corePackages = ['ajv', 'ajv-formats', 'jsonpath-plus', 'leven', 'lossless-json', 're2js'];
/** The workflow SDK (the sandbox's own API) and the payload types it shares with the client. */
const workflowPackages = [...corePackages, '@temporalio/workflow', '@temporalio/common'];

/** Refuses every specifier that is neither relative nor one of `packages` (a subpath is refused below). */
const onlyPackages = (layer, packages) => ({
  regex: `^(?!\\.|(?:${packages.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:/|$))`,
  message: `${layer} imports only the pure packages ${packages.join(', ')}: a package joins the list once it is shown to do no I/O and read no host state.`,
});
const subpathImport = {
  // A bare specifier with a path after the package name: `@temporalio/common/lib/…`, `zod/v4/core`.
  regex: '^(?:@[^/]+/[^/]+|[^@./][^/]*)/',
  message:
    "Import a package by its entry point: subpaths are the package's internals (they change without notice and can pull Node code into the workflow bundle).",
};
const nodeModulesPath = {
  regex: '(?:^|/)node_modules(?:/|$)',
  message: 'Import a package by its name, so the package allowlist sees it.',
};

const coreImports = { patterns: [onlyPackages('core/', corePackages), subpathImport, nodeModulesPath] };

// The workflow bundle must not carry the SQL parser (libpg-query's WASM loader, the guardrail walk): only
// activities check SQL. Types may cross.
const workflowImports = {
  patterns: [
    onlyPackages('workflows/', workflowPackages),
    subpathImport,
    nodeModulesPath,
    {
      group: ['**/activities', '**/activities/*', '**/activities/**'],
      allowTypeImports: true,
      message: 'Import activities only as types.',
    },
    {
      group: ['**/core/sql', '**/core/sql/**'],
      allowTypeImports: true,
      message: 'core/sql (the SQL parser and guardrail) runs in activities, never in the workflow bundle.',
    },
  ],
};

/** Where core/ and workflows/ may import from, by resolved path; node_modules is governed by the package lists. */
const deterministicZones = {
  basePath: import.meta.dirname,
  zones: [
    {
      target: './core',
      from: './',
      except: ['./core', './node_modules'],
      message:
        'core/ imports only core/: it is shared with the replayed workflow, so everything it reaches must be pure.',
    },
    {
      target: './workflows',
      from: './',
      except: ['./workflows', './core', './activities', './node_modules'],
      message: 'workflows/ imports only workflows/, core/ and activities (as types): the rest of the product does I/O.',
    },
  ],
};

const hostLocale =
  "orders and formats by the host's locale and time zone, so two workers decide differently: compare with compareCodePoints (core/text/compare-code-points.ts), format explicitly.";
/** String and Date methods that read the host's locale: `localeCompare`, `toLocaleUpperCase`, `toLocaleString`, … */
const localeMethod = '/^(localeCompare|toLocale[A-Za-z]*)$/';

// Replayed and shared code reads no clock, randomness, network or environment of its own: time comes in as input
// (core/) or from the workflow's deterministic clock (workflows/clock.ts), configuration from activities. The host's
// ambient objects are banned by name, so no alias (`globalThis.process`, `const D = Date`) can reach around the ban.
const hostGlobals = [
  [
    'process',
    'process reads the host (environment, clocks, modules): configuration is read once, in worker/ or config/env.ts.',
  ],
  ['globalThis', 'globalThis reaches every host object past these rules: name what you need, as input.'],
  ['global', 'global reaches every host object past these rules: name what you need, as input.'],
  ['fetch', 'Network calls are I/O: they belong in activities/.'],
  ['XMLHttpRequest', 'Network calls are I/O: they belong in activities/.'],
  ['WebSocket', 'Network calls are I/O: they belong in activities/.'],
  ['crypto', 'crypto is random (randomUUID, getRandomValues): derive values from the input.'],
  ['performance', 'performance.now() reads a clock: take the time as input (core/) or use workflowNow() (workflows/).'],
  ['setTimeout', 'Timers wait on the host: workflows/ sleep with @temporalio/workflow; core/ does not wait.'],
  ['setInterval', 'Timers wait on the host: workflows/ sleep with @temporalio/workflow; core/ does not wait.'],
  ['setImmediate', 'Timers wait on the host: workflows/ sleep with @temporalio/workflow; core/ does not wait.'],
  ['require', 'Modules are imported statically, so the workflow bundle sees them.'],
  ['Buffer', 'Buffer is Node-only: the workflow sandbox has TextEncoder.'],
  ['Intl', `Intl ${hostLocale}`],
].map(([name, message]) => ({ name, message }));

/** Math's pure functions; anything else (random, or Math passed on as a value) can reach randomness. */
const pureMath = 'abs|ceil|floor|max|min|round|sign|trunc|pow|sqrt|log|log2|log10|exp|hypot|cbrt|imul|clz32|fround';
/** Where a `Date` or `Math` identifier is not the host object: a property name, a key, a type. */
const notAValue = [
  'MemberExpression > .property',
  ':matches(Property, PropertyDefinition, MethodDefinition, TSPropertySignature, TSMethodSignature) > .key',
  'TSTypeReference > .typeName',
  'TSQualifiedName > .right',
].join(', ');
const wallClock = 'reads the wall clock: take the time as input (core/) or use workflowNow() (workflows/).';

const deterministicSyntax = {
  'no-restricted-globals': ['error', ...hostGlobals],
  'no-restricted-syntax': [
    'error',
    {
      selector: 'ImportExpression',
      message: 'No dynamic import() in deterministic code: the workflow bundle must see every module statically.',
    },
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: `new Date() ${wallClock}`,
    },
    {
      selector: "NewExpression[callee.name='Date'] > SpreadElement",
      message: `new Date(...values) ${wallClock} when the values are empty: pass the time itself.`,
    },
    {
      // Date only as `new Date(value)`, Date.parse and Date.UTC: a call without new, Date.now or Date passed on
      // as a value (`const D = Date; D.now()`) reads the clock.
      selector: `Identifier[name='Date']:not(${notAValue}, NewExpression > .callee, MemberExpression[property.name=/^(parse|UTC)$/] > .object)`,
      message: `Date is used only as new Date(value), Date.parse or Date.UTC: anything else ${wallClock}`,
    },
    {
      selector: `MemberExpression[property.name=${localeMethod}], MemberExpression[property.value=${localeMethod}]`,
      message: `localeCompare and toLocale…() ${hostLocale}`,
    },
    {
      selector: `Identifier[name='Math']:not(${notAValue}, MemberExpression[computed=false][property.name=/^(${pureMath})$/] > .object)`,
      message: 'Math is used only through its pure functions (Math.max, Math.floor, …): Math.random is not replayable.',
    },
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
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', coreImports],
      'import-x/no-restricted-paths': ['error', deterministicZones],
      ...deterministicSyntax,
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', workflowImports] },
  },
  {
    // Env validated once: config/env.ts reads the process environment and checks it at start; the rest of the product
    // takes the parsed Env. Where the environment is passed on whole (HTTP tool rows' toolEnv, a child process's),
    // the line says so. core/ and workflows/ forbid it above; tests, scripts and benchmarks set their own.
    // And no order by the host's locale: what the API, the CLI or a log lists comes in the same order on every host
    // (core/ and workflows/ forbid it above, with the rest of what reads the host).
    files: ['**/*.ts'],
    ignores: ['config/**', 'core/**', 'workflows/**', 'test/**', 'scripts/**', 'bench/**', 'cli/temporal/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read environment variables through loadEnv (config/env.ts).' },
        { property: 'localeCompare', message: `localeCompare ${hostLocale}` },
      ],
    },
  },
  {
    // A CLI prints JSON through cli/json-line.ts, which escapes the bidirectional and other invisible characters that
    // JSON.stringify leaves as they are: printed to a terminal they reorder or hide the text.
    files: ['cli/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.property.name='out'] CallExpression[callee.object.name='JSON'][callee.property.name='stringify']",
          message:
            'Print JSON with outJson (cli/json-line.ts): JSON.stringify leaves bidirectional controls in the line.',
        },
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
