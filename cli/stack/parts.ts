import type { Env } from '../../config/env';
import { createConfigStore } from '../../db/config/store';
import { reloadOnConfigChange } from '../../db/config/change-listener';
import { openDatabase } from '../../db/pool';
import { startDemoLlm } from '../../demo/recorded-llm';
import { DEMO_API_KEY, startDemoToolServer, type DemoToolServer } from '../../demo/tool-server';
import type { ConfigRows } from '../../core/config/types';
import type { ScriptedLlm } from '../../scripted-llm';
import { noStop, type Part } from './types';

/**
 * How many of their latest requests the embedded demo model and tool server remember: nothing of the stack reads
 * them (tests of the servers do), and keeping every one grew the process by ~30 KiB per turn, for ever.
 */
export const EMBEDDED_KEPT_REQUESTS = 100;

/** The demo model as `convengine start` runs it: its fallback answers over `config`, its request log bounded. */
export function startEmbeddedDemoLlm(config: () => Promise<ConfigRows>): Promise<ScriptedLlm> {
  return startDemoLlm({ config, keptRequests: EMBEDDED_KEPT_REQUESTS });
}

/** The demo tool server as `convengine start` runs it, its request log bounded. */
export function startEmbeddedToolServer(): Promise<DemoToolServer> {
  return startDemoToolServer({ keptRequests: EMBEDDED_KEPT_REQUESTS });
}

/**
 * The keyless demo model (recorded completions, then a deterministic fallback over the loaded
 * config), unless a real API key or base URL is configured.
 */
export async function llmPart(env: Env, databaseUrl: string): Promise<Part<string | null>> {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) return { value: null, embedded: null, stop: noStop };
  const handle = openDatabase(databaseUrl, { max: 1 });
  const store = createConfigStore(handle.db);
  const configChanges = reloadOnConfigChange(store, handle.pool);
  const llm = await startEmbeddedDemoLlm(async () => (await store.current()).rows);
  return {
    value: llm.baseUrl,
    embedded: `LLM: keyless demo model (recorded completions, then keyword matching over the loaded config; set ANTHROPIC_API_KEY for a real model) at ${llm.baseUrl}`,
    stop: async () => {
      await llm.stop();
      await configChanges.close();
      await handle.close();
    },
  };
}

/**
 * The loopback demo tool server the seed packs' HTTP tools call, unless one is configured. A configured one without
 * its key is the worker's to warn of at its start, as `convengine worker`'s is (core/mcp/tool-env.ts).
 */
export async function toolsPart(env: Env): Promise<Part<Record<string, string>>> {
  if (env.CONVENGINE_TOOL_DEMO_URL) {
    return { value: {}, embedded: null, stop: noStop };
  }
  const tools = await startEmbeddedToolServer();
  return {
    value: { CONVENGINE_TOOL_DEMO_URL: tools.baseUrl, CONVENGINE_TOOL_DEMO_API_KEY: DEMO_API_KEY },
    embedded: `HTTP tools: demo tool server at ${tools.baseUrl}`,
    stop: () => tools.stop(),
  };
}
