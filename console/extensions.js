/**
 * Panels that other features add to a conversation's page, in order. Each is
 * `async (conversation) => Element`; e.g. the what-if replay's side-by-side diff of this
 * conversation against a draft config (`convengine whatif`) registers one here.
 */
export const conversationPanels = [];
