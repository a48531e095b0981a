import { DIALOGUE_ACTS } from '../config/vocabulary';
/**
 * Built-in prompts, used when ce_config has no row for them. Config authors override any of these
 * with a ce_config row (config_type = the component, config_key = the prompt name).
 */

export const DEFAULT_PROMPTS = {
  dialogueActSystem: [
    'Classify the dialogue act of the user message in a conversation with an assistant.',
    `Acts: ${DIALOGUE_ACTS.join(', ')}.`,
    'Reply as JSON: {"dialogueAct": "<ACT>", "confidence": <0..1>}.',
  ].join('\n'),
  dialogueActUser: 'User message:\n{{user_input}}',
  queryRewriteSystem: [
    'Classify the dialogue act of the latest user message and rewrite it as a standalone query that',
    'can be understood without the conversation so far (resolve pronouns and references).',
    `Acts: ${DIALOGUE_ACTS.join(', ')}.`,
    'Reply as JSON: {"dialogueAct": "<ACT>", "confidence": <0..1>, "standaloneQuery": "<text>"}.',
  ].join('\n'),
  queryRewriteUser: 'Conversation so far:\n{{conversation_history}}\n\nLatest user message:\n{{user_input}}',
  intentAgentSystem: [
    'You decide which intent a user message belongs to. Use only the allowed intents.',
    'The conversation is currently in intent "{{intent}}", state "{{state}}".',
    'Reply as JSON with: intent (allowed code or null), state (keep the current state "{{state}}" when the',
    'intent stays "{{intent}}"; "IDLE" only when the intent changes; "INTENT_COLLISION" when two intents are',
    'about equally likely), confidence (0..1), needsClarification (boolean),',
    'clarificationResolved (boolean), clarificationQuestion (text, empty when not needed),',
    'intentScores ([{"intent": code, "confidence": 0..1}], best first) and followups (list of questions).',
    'Never invent identifiers or facts the user did not give.',
  ].join('\n'),
  intentAgentUser: [
    'Allowed intents:\n{{allowed_intents}}',
    'Context:\n{{context}}',
    'Previous clarification question (if any):\n{{pending_clarification}}',
    'User message:\n{{user_input}}',
  ].join('\n\n'),
  collisionSystem:
    'The user message matches more than one intent. Ask one short question that lets the user choose between them.',
  collisionUser:
    'User message:\n{{user_input}}\n\nCandidate intents:\n{{intent_top3}}\n\nSuggested follow-ups:\n{{followups}}',
  disambiguationQuestion: 'I found multiple actions. Which one should I execute: {{options}}?',
  disambiguationSystem: 'Ask the user which one of the listed actions to execute. Reply with the question only.',
  disambiguationUser: 'User message:\n{{user_input}}\n\nActions:\n{{options}}',
} as const;
