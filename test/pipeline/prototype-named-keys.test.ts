import { randomUUID } from 'node:crypto';
import { baseConfig } from '../support/base-config';
import { PipelineHarness } from '../support/pipeline-harness';

// Keys named like Object.prototype's members are ordinary data: a step's patch must carry their removal.
describe('input params and context keys named constructor, toString, valueOf (session patches)', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await PipelineHarness.start();
    await h.configure(baseConfig());
  });
  afterAll(async () => h.stop());

  it('a reset clears them as it clears any key, in the reply and the stored conversation', async () => {
    const id = randomUUID();
    await h.seedConversation(id, {
      intentCode: 'FAQ',
      stateCode: 'IDLE',
      contextJson: { constructor: 'v', valueOf: 2, amount: 5 },
      inputParamsJson: { constructor: 'acct-1', toString: 'x', a: 1 },
    });
    const result = await h.turn({ conversationId: id, message: 'hello', reset: true });
    for (const key of ['constructor', 'valueOf', 'amount']) expect(Object.hasOwn(result.context, key)).toBe(false);
    const stored = await h.conversation(id);
    for (const key of ['constructor', 'toString', 'a'])
      expect(Object.hasOwn(stored?.inputParams ?? {}, key)).toBe(false);
    for (const key of ['constructor', 'valueOf', 'amount'])
      expect(Object.hasOwn(stored?.context ?? {}, key)).toBe(false);
  });

  it('a turn that sends them keeps them as sent', async () => {
    const result = await h.turn({ message: 'hello', inputParams: { constructor: 'acct-1', hasOwnProperty: 'y' } });
    const stored = await h.conversation(result.conversationId);
    expect(stored?.inputParams).toMatchObject({ constructor: 'acct-1', hasOwnProperty: 'y' });
  });
});
