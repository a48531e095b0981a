/**
 * A Database whose statements are explained (EXPLAIN ANALYZE with BUFFERS, rolled back: a delete deletes nothing
 * twice) before they run, for tests that bound the rows (or pages) a statement reads.
 */
import type { PoolClient, QueryResult } from 'pg';
import type { Database } from '../../db/pool';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  /** A CTE's or subplan's name (`CTE picked`), and a sort's keys. */
  'Subplan Name'?: string;
  'Sort Key'?: string[];
  Plans?: PlanNode[];
}

/**
 * The table rows a plan's scans read (of `relation`, or of every table): those they returned and those their filters
 * removed, over every loop.
 */
export function rowsRead(node: PlanNode, relation?: string): number {
  const name = node['Relation Name'];
  const own =
    name && (relation === undefined || name === relation)
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, relation), 0);
}

/**
 * The pages (shared buffers found or read) the nodes `counted` touched themselves, not through their children: index
 * pages, and the table pages of the entries a scan visits, rows the statement no longer sees among them (deleted, kept
 * for an older snapshot), which a plan's row counts leave out.
 */
export function blocksRead(node: PlanNode, counted: (node: PlanNode) => boolean): number {
  const children = node.Plans ?? [];
  const blocks = (n: PlanNode) => n['Shared Hit Blocks'] + n['Shared Read Blocks'];
  const own = counted(node) ? blocks(node) - children.reduce((sum, c) => sum + blocks(c), 0) : 0;
  return own + children.reduce((sum, child) => sum + blocksRead(child, counted), 0);
}

export interface ExplainedStatement {
  text: string;
  plan: PlanNode;
}

type Query = (text: string, values?: unknown[]) => Promise<QueryResult>;

async function explain(query: Query, text: string, values: unknown[] | undefined): Promise<PlanNode> {
  const { rows } = await query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
  return (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
}

const CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** A query's text and values, sent as (text, values) or as a config (a named statement: db/statements.ts). */
function sentQuery(text: unknown, values?: unknown[]): { text: unknown; values: unknown[] | undefined } {
  if (typeof text !== 'object' || text === null) return { text, values };
  const config = text as { text?: unknown; values?: unknown[] };
  return { text: config.text, values: config.values };
}

/** `db`, telling `seen` the plan of each statement it runs (`explained` says which). */
export function explainingDatabase(
  db: Database,
  seen: (statement: ExplainedStatement) => void,
  explained: (text: string) => boolean = () => true
): Database {
  const pool = db.$client;
  const wanted = (text: unknown): text is string => typeof text === 'string' && !CONTROL.test(text) && explained(text);
  const poolQuery = async (query: unknown, params?: unknown[]): Promise<QueryResult> => {
    const { text, values } = sentQuery(query, params);
    if (wanted(text)) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        seen({ text, plan: await explain((t, v) => client.query(t, v), text, values) });
      } finally {
        await client.query('ROLLBACK');
        client.release();
      }
    }
    return pool.query(query as string, params);
  };
  const connect = async (): Promise<PoolClient> => {
    const client = await pool.connect();
    const query = async (text: unknown, values?: unknown[]): Promise<QueryResult> => {
      if (wanted(text)) {
        // In the batch's transaction: explained under a savepoint, whose rollback undoes it and keeps the rest.
        await client.query('SAVEPOINT explained');
        seen({ text, plan: await explain((t, v) => client.query(t, v), text, values) });
        await client.query('ROLLBACK TO SAVEPOINT explained');
      }
      return client.query(text as string, values);
    };
    return new Proxy(client, { get: (target, prop) => (prop === 'query' ? query : bindOf(target, prop)) });
  };
  const wrapped = new Proxy(pool, {
    get: (target, prop) => (prop === 'connect' ? connect : prop === 'query' ? poolQuery : bindOf(target, prop)),
  });
  return Object.assign(Object.create(db) as Database, { $client: wrapped });
}

/** `target`'s `prop`, a method bound to it: what a Proxy of a pool or client hands on. */
export function bindOf(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
