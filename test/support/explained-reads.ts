/**
 * A Database whose statements are explained (EXPLAIN ANALYZE, rolled back: a delete deletes nothing twice) before
 * they run, for tests that bound the rows a statement reads.
 */
import type { PoolClient, QueryResult } from 'pg';
import type { Database } from '../../db/pool';

export interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
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

export interface ExplainedStatement {
  text: string;
  plan: PlanNode;
}

type Query = (text: string, values?: unknown[]) => Promise<QueryResult>;

async function explain(query: Query, text: string, values: unknown[] | undefined): Promise<PlanNode> {
  const { rows } = await query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, values);
  return (rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
}

const CONTROL = /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

/** `db`, telling `seen` the plan of each statement it runs (`explained` says which). */
export function explainingDatabase(
  db: Database,
  seen: (statement: ExplainedStatement) => void,
  explained: (text: string) => boolean = () => true
): Database {
  const pool = db.$client;
  const wanted = (text: unknown): text is string => typeof text === 'string' && !CONTROL.test(text) && explained(text);
  const poolQuery = async (text: unknown, values?: unknown[]): Promise<QueryResult> => {
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
    return pool.query(text as string, values);
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

function bindOf(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}
