import { conversationIdForKey } from '../../../api/turns/turn-id';

describe('the conversation a keyed first message opens', () => {
  it('is the id every earlier build derived on the default task queue, so an upgrade keeps it', () => {
    expect(conversationIdForKey('order-42', 'convengine-turns')).toBe('6c16e535-81e9-8c59-ad20-8d0f369b72b8');
  });

  it("is each queue's own elsewhere, and no (queue, key) pair derives another's", () => {
    const ids = [
      conversationIdForKey('order-42', 'convengine-turns'),
      conversationIdForKey('order-42', 'turns-b'),
      conversationIdForKey('order-42', 'turns-c'),
      conversationIdForKey('c', 'a/b'),
      conversationIdForKey('b/c', 'a'),
      conversationIdForKey('@1:a/b', 'convengine-turns'),
      conversationIdForKey('b', 'a'),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(conversationIdForKey('order-42', 'turns-b')).toBe(conversationIdForKey('order-42', 'turns-b'));
  });
});
