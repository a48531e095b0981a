export {
  createAnthropicLlmClient,
  CALL_KIND_HEADER,
  type AnthropicLlmOptions,
  type LlmCallRecord,
} from './anthropic-client';
export { llmCallLogger } from './call-log';
export { parseJsonOutput, type ParsedJson } from './json-output';
export { createLlmClientFromEnv, llmOptionsFromEnv } from './from-env';
