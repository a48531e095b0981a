/**
 * The dev server's module structure (issue #16 item 6): imports, type-only ones included, go one
 * way. `devserver/engine/` is layered as devserver/README.md describes; a module may import from
 * its own layer or lower ones, never higher, and nothing in devserver/ forms an import cycle.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

const DEVSERVER = path.join(__dirname, '..', '..', 'devserver');
const ENGINE = path.join(DEVSERVER, 'engine');

/** Bottom to top. Every engine module is in exactly one layer. */
const ENGINE_LAYERS: readonly (readonly string[])[] = [
  // Plain data and primitives: run state, tokens, policies, queues, the deadline timer, the store.
  [
    'state',
    'command',
    'tokens',
    'retry',
    'search-attributes',
    'visibility-query',
    'matching',
    'scheduler',
    'journal-file',
    'persistence',
  ],
  ['engine'],
  ['history'],
  // What rides on a workflow task: its encoding, update messages, queries; the workflow retry decision.
  ['workflow-task-response', 'update-protocol', 'queries', 'workflow-retry'],
  ['workflow-task', 'workflow-task-events'],
  ['activities', 'activity-events', 'activity-timeouts', 'timers'],
  ['executions', 'eager-dispatch'],
  ['activity-commands', 'run-commands', 'commands'],
  // Entry points the RPC tables call.
  [
    'workflow-task-completion',
    'workflow-start',
    'workflow-id-policy',
    'workflow-ops',
    'updates',
    'activity-ops',
    'activity-control',
    'describe',
    'history-api',
    'visibility',
    'restore',
  ],
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports and re-exports of a file, resolved to files, type-only ones included. */
function localImports(file: string): string[] {
  const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false);
  return info.importedFiles
    .map((ref) => ref.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => {
      const base = path.resolve(path.dirname(file), name);
      const candidates = [`${base}.ts`, path.join(base, 'index.ts')];
      const found = candidates.find((candidate) => fs.existsSync(candidate));
      if (!found) throw new Error(`${file}: cannot resolve ${name}`);
      return found;
    });
}

function importGraph(files: string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, localImports(file)]));
}

/** The first import cycle found by depth-first search, as a list of files, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    const at = stack.indexOf(file);
    if (at >= 0) return [...stack.slice(at), file];
    if (done.has(file)) return undefined;
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    done.add(file);
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

const moduleName = (file: string): string => path.relative(DEVSERVER, file).replace(/\.ts$/, '');

test('no import cycle anywhere in devserver/', () => {
  const cycle = findCycle(importGraph(sourceFiles(DEVSERVER)));
  expect(cycle?.map(moduleName)).toBeUndefined();
});

test('the cycle finder sees a cycle, so the check above can fail', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
  ]);
  expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
});

test('every engine module has a layer and imports only from its own layer or lower ones', () => {
  const layerOf = new Map(ENGINE_LAYERS.flatMap((modules, rank) => modules.map((m) => [m, rank] as const)));
  const engineFiles = sourceFiles(ENGINE);
  const unlayered = engineFiles.map((f) => path.basename(f, '.ts')).filter((m) => !layerOf.has(m));
  expect(unlayered).toEqual([]);
  const upward: string[] = [];
  for (const [file, imports] of importGraph(engineFiles)) {
    const from = path.basename(file, '.ts');
    for (const target of imports.filter((t) => path.dirname(t) === ENGINE)) {
      const to = path.basename(target, '.ts');
      if ((layerOf.get(to) ?? 0) > (layerOf.get(from) ?? 0)) upward.push(`${from} -> ${to}`);
    }
  }
  expect(upward).toEqual([]);
});
