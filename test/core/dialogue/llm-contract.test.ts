import { readDialogueActAnswer, STANDALONE_QUERY_MAX_CHARS } from '../../../core/dialogue/llm-contract';

describe('the dialogue-act answer bounds the standalone query it takes from the model', () => {
  const answer = (standaloneQuery: string) => ({ dialogueAct: 'NEW_REQUEST', confidence: 0.95, standaloneQuery });

  it(`keeps a query up to ${STANDALONE_QUERY_MAX_CHARS} characters and drops a longer one, as if there were no rewrite`, () => {
    const longest = 'Q'.repeat(STANDALONE_QUERY_MAX_CHARS);
    expect(readDialogueActAnswer(answer(longest))?.standaloneQuery).toBe(longest);
    expect(readDialogueActAnswer(answer(`${longest}Q`))).toEqual({
      act: 'NEW_REQUEST',
      confidence: 0.95,
      standaloneQuery: null,
    });
  });
});
