import type { Env } from '../../config/env';
import { createConfigStore } from '../../db/config/store';
import { openDatabase } from '../../db/pool';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer } from '../../demo/tool-server';
import { noStop, type Part } from './types';

/**
 * The keyless demo model (recorded completions, then a deterministic fallback over the loaded
 * config), unless a real API key or base URL is configured.
 */
export async function llmPart(env: Env, databaseUrl: string): Promise<Part<string | null>> {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) return { value: null, embedded: null, stop: noStop };
  const handle = openDatabase(databaseUrl, { max: 1 });
  const store = createConfigStore(handle.db);
  const llm = await startDemoLlm({ config: async () => (await store.current()).rows });
  return {
    value: llm.baseUrl,
    embedded: `LLM: keyless demo model (recorded completions, then keyword matching over the loaded config; set ANTHROPIC_API_KEY for a real model) at ${llm.baseUrl}`,
    stop: async () => {
      await llm.stop();
      await handle.close();
    },
  };
}

/** What `convengine start` says when the seed packs' HTTP tools would call a configured server without its key. */
export const MISSING_TOOL_KEY =
  "warning: CONVENGINE_TOOL_DEMO_URL is set but CONVENGINE_TOOL_DEMO_API_KEY is not: the seed packs' HTTP tools " +
  'send it as their bearer token, so each of their calls fails (TOOL_ERROR) until it is set';

/**
 * The loopback demo tool server the seed packs' HTTP tools call, unless one is configured; `log` hears that a
 * configured one lacks its key.
 */
export async function toolsPart(env: Env, log: (line: string) => void): Promise<Part<Record<string, string>>> {
  if (env.CONVENGINE_TOOL_DEMO_URL) {
    if (!env.CONVENGINE_TOOL_DEMO_API_KEY) log(MISSING_TOOL_KEY);
    return { value: {}, embedded: null, stop: noStop };
  }
  const tools = await startDemoToolServer();
  return {
    value: { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY },
    embedded: `HTTP tools: demo tool server at ${tools.baseUrl}`,
    stop: () => tools.stop(),
  };
}
