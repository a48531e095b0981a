export { startScriptedLlm, CALL_KIND_HEADER, type ScriptedLlm, type ScriptedLlmOptions } from './server';
export { Script, replyText, type ScriptEntry, type RecordedRequest } from './script';
export { type LlmFault, type LlmFaultRule } from './faults';
