import { execFileSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { testWorkflowBundle } from '../support/workflow-bundle';

const ROOT = join(__dirname, '..', '..');

interface Snippet {
  path: string;
  /** null: lint the file at `path` as it is on disk. */
  code: string | null;
}

/**
 * Rule ids the project's eslint.config.mjs reports for each snippet, linted as if it lived at its
 * path. One child process for the whole file: Jest's VM cannot load the ES module config.
 */
function lint(snippets: Snippet[]): string[][] {
  const out = execFileSync(process.execPath, [join(__dirname, 'lint-snippets.mjs'), ROOT], {
    input: JSON.stringify(snippets),
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[][];
}

const deterministic: [string, string, string][] = [
  ['a dynamic import()', "export const load = () => import('./json');", 'no-restricted-syntax'],
  ['process.env', "export const level = process.env['LOG_LEVEL'];", 'no-restricted-globals'],
  ['Date.now()', 'export const now = () => Date.now();', 'no-restricted-syntax'],
  ['new Date() without arguments', 'export const today = () => new Date();', 'no-restricted-syntax'],
  ['Math.random()', 'export const jitter = () => Math.random();', 'no-restricted-syntax'],
  [
    'a package subpath import',
    "import { msToTs } from '@temporalio/common/lib/time';\nexport const ts = msToTs;",
    '@typescript-eslint/no-restricted-imports',
  ],
  // Indirect clock, randomness, network and environment reads (the outside sweep's cases).
  ['fetch()', 'export const get = async (u: string) => (await fetch(u)).text();', 'no-restricted-globals'],
  ['globalThis.Date.now()', 'export const now = () => globalThis.Date.now();', 'no-restricted-globals'],
  ['Date() without new', 'export const now = () => Date();', 'no-restricted-syntax'],
  ['an alias of Date', 'const D = Date;\nexport const now = () => D.now();', 'no-restricted-syntax'],
  ['an alias of Math', 'const M = Math;\nexport const jitter = () => M.random();', 'no-restricted-syntax'],
  ["Math['random']()", "export const jitter = () => Math['random']();", 'no-restricted-syntax'],
  ['new Date(...values)', 'export const at = (ms: number[]) => new Date(...ms);', 'no-restricted-syntax'],
  ['crypto.randomUUID()', 'export const id = () => crypto.randomUUID();', 'no-restricted-globals'],
  ['performance.now()', 'export const now = () => performance.now();', 'no-restricted-globals'],
  ['process.hrtime.bigint()', 'export const now = () => process.hrtime.bigint();', 'no-restricted-globals'],
  ['globalThis.process.env', "export const home = globalThis.process.env['HOME'];", 'no-restricted-globals'],
  ['process.getBuiltinModule()', "export const fs = process.getBuiltinModule('fs');", 'no-restricted-globals'],
  ['setTimeout()', 'export const later = (f: () => void) => setTimeout(f, 1);', 'no-restricted-globals'],
  // The host's locale: an Estonian worker sorts ZAP before TRANSFER, a Danish one AAB after ZAP.
  ['localeCompare()', 'export const byCode = (a: string, b: string) => a.localeCompare(b);', 'no-restricted-syntax'],
  [
    "a['localeCompare']()",
    "export const byCode = (a: string, b: string) => a['localeCompare'](b);",
    'no-restricted-syntax',
  ],
  ['toLocaleUpperCase()', 'export const upper = (a: string) => a.toLocaleUpperCase();', 'no-restricted-syntax'],
  ['Intl.Collator', 'export const byCode = new Intl.Collator().compare;', 'no-restricted-globals'],
  [
    'an alias of Intl',
    'const { Collator } = Intl;\nexport const byCode = new Collator().compare;',
    'no-restricted-globals',
  ],
];
/** What core/ and workflows/ do use: Date only to convert a given time, Math only through its pure functions. */
const PURE_DATE_AND_MATH = [
  'export const at = (ms: number) => new Date(ms).toISOString();',
  'export const ms = (iso: string): number => Math.max(Date.parse(iso), Date.UTC(2020, 0), Math.floor(0.5));',
  'export const day = (d: Date): number => d.getTime();',
  'export interface Shape { Date: Date; Math(): number }',
  'export const keys = { Date: 1, Math: 2 };',
].join('\n');

const DETERMINISTIC_PATHS = ['core/turn/__fixture__.ts', 'workflows/__fixture__.ts'];
/** An import of `target` (a package, or a module by its path from the root: `./config/env`) written from `path`. */
function importOf(path: string, target: string, kind: 'value' | 'type' = 'value'): string {
  const fromPath = relative(dirname(path), target);
  const specifier = !target.startsWith('./') ? target : fromPath.startsWith('.') ? fromPath : `./${fromPath}`;
  return kind === 'type'
    ? `import type * as imported from '${specifier}';\nexport type Imported = typeof imported;`
    : `import * as imported from '${specifier}';\nexport const value = imported;`;
}
/** Modules and packages that do I/O or hold host state (the outside sweep's cases): core/ and workflows/ refuse them. */
const IO_MODULES: [string, string][] = [
  ['./config/temporal-client', 'import-x/no-restricted-paths'],
  ['./observability/logger', 'import-x/no-restricted-paths'],
  ['./demo/tool-server', 'import-x/no-restricted-paths'],
  ['./scripted-llm/server', 'import-x/no-restricted-paths'],
  ['pino', '@typescript-eslint/no-restricted-imports'],
  ['prom-client', '@typescript-eslint/no-restricted-imports'],
  ['@opentelemetry/api', '@typescript-eslint/no-restricted-imports'],
  ['@fastify/swagger', '@typescript-eslint/no-restricted-imports'],
  ['node:fs', '@typescript-eslint/no-restricted-imports'],
  ['fs', '@typescript-eslint/no-restricted-imports'],
];
/** What each layer does import today: its own modules, core/, its pure packages, activities as types. */
const ALLOWED_IMPORTS: Record<string, string[]> = {
  'core/turn/__fixture__.ts': [
    importOf('core/turn/__fixture__.ts', './core/json'),
    importOf('core/turn/__fixture__.ts', 'ajv'),
  ],
  'workflows/__fixture__.ts': [
    importOf('workflows/__fixture__.ts', './workflows/clock'),
    importOf('workflows/__fixture__.ts', './core/json'),
    importOf('workflows/__fixture__.ts', '@temporalio/workflow'),
    importOf('workflows/__fixture__.ts', './activities', 'type'),
  ],
};
const SQL_IMPORT = "import { checkReadOnlySql } from '../core/sql/guardrail';\nexport const f = checkReadOnlySql;";
const SQL_TYPE_IMPORT = "import type { SqlVerdict } from '../core/sql/guardrail';\nexport type V = SqlVerdict;";
const ENV_READ = "export const bundle = process.env['CONVENGINE_WORKFLOW_BUNDLE'];";
/** Product code outside config/ that must take the parsed Env instead (the variables worker/bundle.ts once read). */
const ENV_TAKERS = ['activities', 'api', 'cli', 'cli/stack', 'db', 'worker', 'observability', 'demo', 'devserver'];
/** An order by the host's locale, which product code outside core/ and workflows/ refuses as well. */
const LOCALE_ORDER = 'export const byStart = (a: string, b: string) => a.localeCompare(b);';

/** A CLI command printing a JSON line with `print`. */
const cliJson = (print: string): string =>
  [
    "import type { CliIo } from '../command';",
    "import { outJson } from '../json-line';",
    `export const print = (io: CliIo, ok: boolean) => ${print};`,
    'export const writer = outJson;',
  ].join('\n');

const cases = {
  ...Object.fromEntries(
    DETERMINISTIC_PATHS.flatMap((path) => [
      ...deterministic.map(([what, code]) => [`${path}: ${what}`, { path, code }] as const),
      [`${path}: clock as input`, { path, code: PURE_DATE_AND_MATH }] as const,
      ...IO_MODULES.map(([target]) => [`${path}: import ${target}`, { path, code: importOf(path, target) }] as const),
      ...IO_MODULES.map(
        ([target]) => [`${path}: import type ${target}`, { path, code: importOf(path, target, 'type') }] as const
      ),
      ...(ALLOWED_IMPORTS[path] ?? []).map((code, i) => [`${path}: allowed import ${i}`, { path, code }] as const),
    ])
  ),
  ...Object.fromEntries(
    deterministic.map(([what, code]) => [`activities: ${what}`, { path: 'activities/__fixture__.ts', code }] as const)
  ),
  ...Object.fromEntries(
    ENV_TAKERS.map((dir) => [`${dir}: env read`, { path: `${dir}/__fixture__.ts`, code: ENV_READ }])
  ),
  ...Object.fromEntries(
    ENV_TAKERS.map((dir) => [`${dir}: locale order`, { path: `${dir}/__fixture__.ts`, code: LOCALE_ORDER }])
  ),
  'config: env read': { path: 'config/__fixture__.ts', code: ENV_READ },
  'cli: JSON.stringify printed': {
    path: 'cli/commands/__fixture__.ts',
    code: cliJson('io.out(JSON.stringify({ ok }))'),
  },
  'cli: JSON printed by outJson': {
    path: 'cli/commands/__fixture__.ts',
    code: cliJson('outJson(io, { ok })'),
  },
  'workflows: activities': {
    path: 'workflows/__fixture__.ts',
    code: importOf('workflows/__fixture__.ts', './activities'),
  },
  'workflows: core/sql': { path: 'workflows/__fixture__.ts', code: SQL_IMPORT },
  'workflows: core/sql types': { path: 'workflows/__fixture__.ts', code: SQL_TYPE_IMPORT },
  'core: core/sql': { path: 'core/mcp/__fixture__.ts', code: SQL_IMPORT.replace('../core/sql', '../sql') },
  cycle: { path: 'test/lint/fixtures/cycle/first.ts', code: null },
} satisfies Record<string, Snippet>;

describe('architecture lint (issue #13, item 9)', () => {
  let reported: Record<string, string[]>;
  beforeAll(() => {
    const names = Object.keys(cases) as (keyof typeof cases)[];
    const results = lint(names.map((name) => cases[name]));
    reported = Object.fromEntries(names.map((name, i) => [name, results[i] ?? []]));
  });

  describe.each(DETERMINISTIC_PATHS)('in %s', (path) => {
    it.each(deterministic)('forbids %s', (what, _code, rule) => {
      expect(reported[`${path}: ${what}`]).toContain(rule);
    });

    it('allows a clock value that comes in as input: new Date(value), Date.parse, Date as a type, Math.max', () => {
      expect(reported[`${path}: clock as input`]).toEqual([]);
    });

    // An allowlist: a module or package not named in eslint.config.mjs is refused, its types too.
    it.each(IO_MODULES)('forbids importing %s', (target, rule) => {
      expect(reported[`${path}: import ${target}`]).toContain(rule);
      expect(reported[`${path}: import type ${target}`]).toContain(rule);
    });

    it('allows its own modules, core/ and its pure packages', () => {
      ALLOWED_IMPORTS[path]?.forEach((_code, i) => expect(reported[`${path}: allowed import ${i}`]).toEqual([]));
    });
  });

  it.each(deterministic.filter(([what]) => !what.includes('process.env') && !what.includes('localeCompare')))(
    'allows %s outside the deterministic layers',
    (what) => {
      expect(reported[`activities: ${what}`]).toEqual([]);
    }
  );

  // Env validated once: a variable read past loadEnv is never checked, so a bad value fails late or not at all.
  it.each(ENV_TAKERS)('forbids reading process.env in %s/', (dir) => {
    expect(reported[`${dir}: env read`]).toContain('no-restricted-properties');
  });

  // A list the console or the CLI shows (a turn's runs, api/console/temporal-inspector.ts) came in another order on a
  // host of another locale.
  it.each(ENV_TAKERS)('forbids ordering by the host locale (localeCompare) in %s/', (dir) => {
    expect(reported[`${dir}: locale order`]).toContain('no-restricted-properties');
  });

  it('allows reading process.env in config/, where loadEnv validates it', () => {
    expect(reported['config: env read']).toEqual([]);
  });

  it('has the CLI print JSON through outJson, which escapes what JSON.stringify leaves for the terminal', () => {
    expect(reported['cli: JSON.stringify printed']).toContain('no-restricted-syntax');
    expect(reported['cli: JSON printed by outJson']).toEqual([]);
  });

  it('keeps activity implementations out of workflows/ (activities cross only as types)', () => {
    expect(reported['workflows: activities']).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('keeps core/sql (the SQL parser) out of workflows/, types excepted', () => {
    expect(reported['workflows: core/sql']).toContain('@typescript-eslint/no-restricted-imports');
    expect(reported['workflows: core/sql types']).toEqual([]);
    expect(reported['core: core/sql']).toEqual([]);
  });

  it('reports an import cycle', () => {
    expect(reported['cycle']).toContain('import-x/no-cycle');
  });

  it('the workflow bundle holds no module of core/sql, not even through core/', async () => {
    const { code } = await testWorkflowBundle();
    expect(code).toContain('./core/turn/driver.ts');
    expect(code).not.toMatch(/\.\/core\/sql\//);
  });
});
