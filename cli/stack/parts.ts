import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Env } from '../../config/env';
import { startEmbeddedPostgres } from '../../db/embedded';
import { startDevServer } from '../../devserver';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer } from '../../demo/tool-server';
import { TURN_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

/** A started part of the stack: what it gives the others, and how to stop it. */
export interface Part<T> {
  value: T;
  /** Human description when this part is embedded (printed at start), null when external. */
  embedded: string | null;
  stop(): Promise<void>;
}

const none = async (): Promise<void> => undefined;

export async function databasePart(env: Env, home: string): Promise<Part<string>> {
  if (env.DATABASE_URL) return { value: env.DATABASE_URL, embedded: null, stop: none };
  const dataDir = join(home, 'pgdata');
  const pg = await startEmbeddedPostgres({ dataDir });
  return { value: pg.url, embedded: `PostgreSQL: embedded PGlite (data in ${dataDir})`, stop: () => pg.stop() };
}

export async function temporalPart(env: Env, home: string, port: number): Promise<Part<string>> {
  if (env.TEMPORAL_ADDRESS) return { value: env.TEMPORAL_ADDRESS, embedded: null, stop: none };
  const options = {
    namespace: env.TEMPORAL_NAMESPACE,
    persistPath: join(home, 'temporal-devserver.jsonl'),
    searchAttributes: { ...TURN_SEARCH_ATTRIBUTES },
  };
  const server = await startDevServer({ ...options, port }).catch((err: unknown) => {
    // 7233 may belong to another server; an ephemeral port keeps the zero-setup start working.
    if (port !== 0 && /EADDRINUSE|address already in use|No address added/i.test(String(err))) {
      return startDevServer({ ...options, port: 0 });
    }
    throw err;
  });
  return {
    value: server.address,
    embedded: `Temporal: embedded dev server at ${server.address} (namespace ${server.namespace}, state in ${options.persistPath})`,
    stop: () => server.stop(),
  };
}

/** The scripted Messages server with the demo recordings, unless a real API key is configured. */
export async function llmPart(env: Env): Promise<Part<string | null>> {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) return { value: null, embedded: null, stop: none };
  const llm = await startDemoLlm();
  return {
    value: llm.baseUrl,
    embedded: `LLM: scripted Messages API with recorded completions for the seed packs (no ANTHROPIC_API_KEY) at ${llm.baseUrl}`,
    stop: () => llm.stop(),
  };
}

/** The loopback demo tool server the seed packs' HTTP tools call, unless one is configured. */
export async function toolsPart(): Promise<Part<Record<string, string>>> {
  if (process.env['CONVENGINE_TOOL_DEMO_URL']) return { value: {}, embedded: null, stop: none };
  const tools = await startDemoToolServer();
  return {
    value: { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY },
    embedded: `HTTP tools: demo tool server at ${tools.baseUrl}`,
    stop: () => tools.stop(),
  };
}

/**
 * Registers the turn workflow's search attributes on a real cluster too (best effort): compose's
 * bootstrap job does it in production, this saves a step against `temporal server start-dev`.
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection, namespace });
    const types = temporal.api.enums.v1.IndexedValueType;
    const searchAttributes = Object.fromEntries(
      Object.entries(TURN_SEARCH_ATTRIBUTES).map(([name, type]) => [
        name,
        type === 'Int' ? types.INDEXED_VALUE_TYPE_INT : types.INDEXED_VALUE_TYPE_KEYWORD,
      ])
    );
    await client.connection.operatorService.addSearchAttributes({ namespace, searchAttributes }).catch(() => undefined);
  } finally {
    await connection.close();
  }
}
