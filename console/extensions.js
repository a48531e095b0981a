import { whatifPanel } from './views/whatif.js';

/**
 * Panels that other features add to a conversation's page, in order. Each is `async (conversation) => Element`:
 * the what-if replay of this conversation against a config version (docs/whatif.md) is one.
 */
export const conversationPanels = [whatifPanel];
