/**
 * README's "HTTP API" table names every route of the OpenAPI document: an outsider reading it found no held-tool
 * routes, which docs/runbook.md §6 uses. A row may name a group: `GET /api/v1/console/…` (every GET under that
 * prefix) and `POST …/actions/{action}` (every POST ending so).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedApi, operations } from './document';

const README = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** `METHOD path` of each route the table's first column names, its query string left out. */
function tableRoutes(): { method: string; path: string }[] {
  const section = README.slice(README.indexOf('\n## HTTP API\n'), README.indexOf('\n## Configuration\n'));
  const firstCells = section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.split(' | ')[0] as string);
  return firstCells.flatMap((cell) =>
    [...cell.matchAll(/`(GET|POST|DELETE) ([^`?]+)[^`]*`/g)].map((m) => ({
      method: m[1] as string,
      path: m[2] as string,
    }))
  );
}

function named(method: string, path: string, rows: { method: string; path: string }[]): boolean {
  return rows.some((row) => {
    if (row.method !== method) return false;
    if (row.path.endsWith('…')) return path.startsWith(row.path.slice(0, -1));
    if (row.path.startsWith('…')) return path.endsWith(row.path.slice(1));
    return row.path === path;
  });
}

describe("README's HTTP API table", () => {
  const api = documentedApi();

  it('names every route the API documents', () => {
    const rows = tableRoutes();
    expect(rows.length).toBeGreaterThan(10);
    const missing = operations(api.doc)
      .filter(({ method, path }) => !named(method.toUpperCase(), path, rows))
      .map(({ name }) => name);
    expect(missing).toEqual([]);
  });
});
