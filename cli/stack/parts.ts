import type { Env } from '../../config/env';
import { startEmbeddedPostgres } from '../../db/embedded';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer } from '../../demo/tool-server';

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
  const pg = await startEmbeddedPostgres(home);
  return {
    value: pg.url,
    embedded: `PostgreSQL: server at ${pg.maskedUrl} (data in ${pg.dataDir}, password in ${pg.passwordFile})`,
    stop: () => pg.stop(),
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
