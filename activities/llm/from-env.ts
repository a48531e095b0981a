import type { Env } from '../../config/env';
import type { LlmClient } from '../../core/llm';
import { llmSdkRetries } from '../../core/turn/steps';
import type { Database } from '../../db/pool';
import { createAnthropicLlmClient, type AnthropicLlmOptions, type LlmCallRecord } from './anthropic-client';
import { llmCallLogger } from './call-log';

/**
 * Client options from the environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (the scripted
 * server in tests and the zero-setup start), ANTHROPIC_MODEL, LLM_TIMEOUT_MS, LLM_MAX_TOKENS, LLM_REPLY_MAX_BYTES.
 */
export function llmOptionsFromEnv(env: Env, overrides: Partial<AnthropicLlmOptions> = {}): AnthropicLlmOptions {
  return {
    // The SDK refuses to start without a key; a scripted base URL does not check it.
    apiKey: env.ANTHROPIC_API_KEY ?? 'scripted-no-key',
    ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    model: env.ANTHROPIC_MODEL,
    timeoutMs: env.LLM_TIMEOUT_MS,
    maxTokens: env.LLM_MAX_TOKENS,
    maxReplyBytes: env.LLM_REPLY_MAX_BYTES,
    maxRetries: llmSdkRetries(env.LLM_TIMEOUT_MS),
    structuredOutput: false,
    // Keyless: the base URL is the demo model, which reads the turn's message from the body (LLM_DEMO_META_FIELD).
    demoMeta: !env.ANTHROPIC_API_KEY && env.ANTHROPIC_BASE_URL !== undefined,
    ...overrides,
  };
}

/**
 * The worker's LLM client: every call logged to ce_llm_call_log, and handed to `observe` (metrics,
 * span attributes, the log line) when given.
 */
export function createLlmClientFromEnv(
  env: Env,
  db: Database,
  overrides: Partial<AnthropicLlmOptions> = {},
  observe?: (entry: LlmCallRecord) => void
): LlmClient {
  const log = llmCallLogger(db);
  const onCall = async (entry: LlmCallRecord) => {
    observe?.(entry);
    await log(entry);
  };
  return createAnthropicLlmClient(llmOptionsFromEnv(env, { onCall, ...overrides }));
}
