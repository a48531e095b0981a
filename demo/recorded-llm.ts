import type { ConfigRows } from '../core/config/types';
import { startScriptedLlm, type RecordedRequest, type ScriptedLlm, type ScriptEntry } from '../scripted-llm';
import { fallbackAnswer } from './fallback-model';
import { turnOf } from './fallback-turn';
import { dialogueActRecordings } from './recordings/dialogue-acts';
import { loanRecordings } from './recordings/loan';
import { moveConnectionsRecordings } from './recordings/move-connections';
import { orderRecordings } from './recordings/order';
import { zapperRecordings } from './recordings/zapper';

/**
 * Recorded completions for every LLM call the demo conversations make (demo/conversations.ts),
 * so the bundled demo config runs end to end without an ANTHROPIC_API_KEY (DECISIONS P2).
 *
 * Every recording is persistent and is chosen by the call kind plus what the prompt contains —
 * the user message, the tool observations so far, the values in context — never by call order.
 * The demo therefore runs any number of times, in any order and concurrently. Each recording is a
 * literal model answer; the business facts in it (rows, statuses, ratings, application ids) are
 * only repeated when the prompt already shows them from the real tools. Anything unrecorded is
 * answered by the fallback model when the config is given, else with a loud, non-retryable error.
 */
export function demoLlmScript(): ScriptEntry[] {
  return [
    ...dialogueActRecordings(),
    ...moveConnectionsRecordings(),
    ...loanRecordings(),
    ...zapperRecordings(),
    ...orderRecordings(),
  ];
}

export interface DemoLlmOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * The running config, for the deterministic fallback model that answers what the recordings do
   * not (demo/fallback-model.ts). Without it an unrecorded call fails loudly (tests want that).
   */
  config?: () => Promise<ConfigRows>;
  /** How many of the latest requests the server's `requests` keeps (default: all; see ScriptedLlmOptions). */
  keptRequests?: number;
}

/** A scripted Messages-API server on loopback answering with the demo recordings; point ANTHROPIC_BASE_URL at it. */
export function startDemoLlm(options: DemoLlmOptions = {}): Promise<ScriptedLlm> {
  const { config, ...server } = options;
  const fallback = config
    ? async (request: RecordedRequest) => fallbackAnswer(await config(), turnOf(request))
    : undefined;
  return startScriptedLlm({ ...server, script: demoLlmScript(), ...(fallback ? { fallback } : {}) });
}
