/**
 * docs/security.md, "What each token reaches", says of every route which token reaches it, as the API decides
 * (api/auth.ts, through the OpenAPI document's `security`, which test/api/openapi/auth.test.ts holds to the API's
 * answers), and says what a gateway in front of the API must do. A row may name a group: `GET /api/v1/console/…`
 * (every GET under that prefix).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentedApi, operations } from './document';

const SECURITY = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'security.md'), 'utf8');

/** A section of docs/security.md, from its heading to the next heading of its level or above. */
function section(heading: string): string {
  const start = SECURITY.indexOf(`\n${heading}\n`);
  expect(start).toBeGreaterThan(0);
  const level = heading.split(' ')[0] as string;
  const next = SECURITY.slice(start + heading.length + 2).search(new RegExp(`\\n#{1,${level.length}} `));
  return SECURITY.slice(start, next < 0 ? undefined : start + heading.length + 2 + next);
}

/** Each row of the token table: the routes its first cell names and what its second says of API_TOKEN. */
function tokenRows(): { routes: { method: string; path: string }[]; gatewayToken: string }[] {
  return section('## What each token reaches')
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [first = '', second = ''] = line.split('|').slice(1);
      const routes = [...first.matchAll(/`(GET|POST|DELETE) ([^`?]+)`/g)].map((m) => ({ method: m[1]!, path: m[2]! }));
      return { routes, gatewayToken: second.trim() };
    });
}

function names(row: { routes: { method: string; path: string }[] }, method: string, path: string): boolean {
  return row.routes.some(
    (r) => r.method === method && (r.path.endsWith('…') ? path.startsWith(r.path.slice(0, -1)) : r.path === path)
  );
}

describe('docs/security.md, What each token reaches', () => {
  const api = documentedApi();

  it('names every route once, with the answer the gateway token gets there when OPERATOR_API_TOKEN is set', () => {
    const rows = tokenRows();
    const said = operations(api.doc).map(({ name, method, path, op }) => {
      const rowsNaming = rows.filter((row) => names(row, method.toUpperCase(), path));
      const security = JSON.stringify(op.security);
      const answer = security === '[]' ? 'open' : security.includes('apiToken') ? 'yes' : '403';
      return { name, rows: rowsNaming.length, said: rowsNaming[0]?.gatewayToken, answer };
    });
    expect(said.filter((s) => s.rows !== 1 || s.said !== s.answer)).toEqual([]);
  });

  it('says what a gateway must do: tie conversations to its users, keep them off operator routes, mind the memory echo', () => {
    const duties = section('### What a gateway must do');
    expect(duties).toContain('**Tie every conversation id to the user it belongs to**');
    expect(duties).toContain("**Never pass an end user's request to an operator route**");
    expect(duties).toContain("**Know that replies echo the conversation's memory.**");
    expect(duties).toContain('context.memory.session_summary');
  });
});
