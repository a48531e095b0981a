/**
 * The docs point at files that exist: relative Markdown links, and the paths README's Architecture map names
 * (`api/routes/console/`, `core/{a,b}`, `activities/pipeline/*.ts`), which a reader opens without a link.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, 'examples')).map((d) => `examples/${d}/README.md`),
  'devserver/README.md',
  'activities/pipeline/README.md',
  'bench/README.md',
];

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** `core/{a,b}` → `core/a`, `core/b`; `api/routes/{x,y}.ts` likewise. */
function expand(path: string): string[] {
  const brace = /\{([^{}]*)\}/.exec(path);
  if (!brace) return [path];
  return brace[1]!.split(',').flatMap((part) => expand(path.replace(brace[0], part)));
}

/** A path with `*` in its last part exists when some file in its folder matches it. */
function exists(path: string): boolean {
  if (!path.includes('*')) return existsSync(join(ROOT, path));
  const folder = dirname(path);
  const pattern = new RegExp(
    `^${path
      .slice(folder.length + 1)
      .replace(/\./g, '\\.')
      .replace(/\*/g, '.*')}$`
  );
  return existsSync(join(ROOT, folder)) && readdirSync(join(ROOT, folder)).some((f) => pattern.test(f));
}

/** The rows of README's Architecture map: `| concept | where it lives |`. */
function architectureMapPaths(readme: string): string[] {
  const section = readme.slice(readme.indexOf('| Seed concept'));
  const table = section.slice(0, section.search(/\n\s*\n/));
  const where = table.split('\n').map((row) => row.split('|')[2] ?? '');
  return [...where.join(' ').matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!)
    .filter((code) => /^[a-z][\w.-]*\/|\.(ts|sql|md|js)$/.test(code) && !code.startsWith('@'))
    .flatMap(expand);
}

describe('paths the docs name', () => {
  it.each(DOCS)('%s: every relative link is to a file that exists', (doc) => {
    const links = [...read(doc).matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)].map((m) => m[1]!);
    const dead = links.filter((l) => !/^[a-z]+:/.test(l) && !existsSync(join(ROOT, dirname(doc), l)));
    expect(dead).toEqual([]);
  });

  it("README's Architecture map names files and folders that exist", () => {
    const paths = architectureMapPaths(read('README.md'));
    expect(paths).toEqual(expect.arrayContaining(['core/rules/', 'api/history/', 'core/policy']));
    expect(paths.filter((p) => !exists(p))).toEqual([]);
  });

  it('catches a map row naming a file that is not there', () => {
    const readme = '| Seed concept | Where it lives |\n| - | - |\n| Console | `console/`, `api/routes/console.ts` |\n';
    expect(architectureMapPaths(readme).filter((p) => !exists(p))).toEqual(['api/routes/console.ts']);
  });
});
