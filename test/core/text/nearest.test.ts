import { nearestName } from '../../../core/text/nearest';

describe('nearestName (did you mean …?)', () => {
  it('names the closest known name, ignoring case, or none when nothing is close', () => {
    const known = ['McpPlanner.SYSTEM_PROMPT', 'McpPlanner.USER_PROMPT', 'DialogueActStep.REGEX_AFFIRM'];
    expect(nearestName('mcpplaner.system_prompt', known)).toBe('McpPlanner.SYSTEM_PROMPT');
    expect(nearestName('DialogueActStep.REGEX_AFIRM', known)).toBe('DialogueActStep.REGEX_AFFIRM');
    expect(nearestName('Frobnicator.SPEED', known)).toBeNull();
    expect(nearestName('ab', ['xy'])).toBe('xy');
    expect(nearestName('ab', ['xyz'])).toBeNull();
  });
});
